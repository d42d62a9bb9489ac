"""Varied synthetic Spanish conversational lines for the memory and throughput benchmarks.

Lines come from templates filled with first names, surnames, places, numbers, times, order codes
and user names drawn by a seeded generator, so that, as in real chat text, new word forms keep
appearing (a parser's string table grows with them) while short re-genderable segments
(*Estoy cansada.*, *¿Estás listo?*, *Dámelo.*) stay frequent.

    python benchmarks/synthetic_text.py --lines 1000 > lines.txt
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator

FIRST_NAMES = (
    "Ana Lucía María Carmen Isabel Laura Marta Sofía Paula Elena Sara Raquel Julia Alba Irene Clara Nuria Rocío "
    "Pilar Teresa Lorena Beatriz Andrea Natalia Silvia Patricia Cristina Alicia Noelia Inés Miriam Ainhoa Leire "
    "Begoña Itziar Montserrat Jordi Pablo Juan José Luis Carlos Javier Miguel Antonio Manuel David Daniel "
    "Alejandro Sergio Jorge Alberto Raúl Rubén Iván Adrián Diego Álvaro Óscar Fernando Ramón Andrés Gonzalo "
    "Ignacio Enrique Víctor Hugo Mario Marcos Tomás Emilio Rodrigo Joaquín Xavier Iker Unai Aitor Gorka Mikel"
).split()
SURNAMES = (
    "García Fernández González Rodríguez López Martínez Sánchez Pérez Gómez Martín Jiménez Ruiz Hernández Díaz "
    "Moreno Muñoz Álvarez Romero Alonso Gutiérrez Navarro Torres Domínguez Vázquez Ramos Gil Ramírez Serrano "
    "Blanco Molina Morales Suárez Ortega Delgado Castro Ortiz Rubio Marín Sanz Núñez Iglesias Medina Garrido "
    "Cortés Castillo Santos Lozano Guerrero Cano Prieto Méndez Cruz Calvo Gallego Vidal León Márquez Herrera "
    "Peña Flores Cabrera Campos Vega Fuentes Carrasco Diez Caballero Reyes Nieto Aguilar Pascual Santana Herrero"
).split()
PLACES = (
    "Madrid Barcelona Valencia Sevilla Zaragoza Málaga Murcia Palma Bilbao Alicante Córdoba Valladolid Vigo Gijón "
    "Granada Oviedo Pamplona Almería Santander Burgos Salamanca Logroño Badajoz Huelva Lleida Tarragona León "
    "Cádiz Jaén Ourense Girona Lugo Cáceres Segovia Soria Teruel Huesca Cuenca Toledo Ávila Zamora Palencia"
).split()
ADJECTIVES = "cansado listo contento preocupado enfadado ocupado seguro nervioso aburrido emocionado".split()
PARTICIPLES = "agotado sorprendido perdido decepcionado equivocado asustado".split()
THINGS = "libro coche paquete pedido billete móvil ordenador regalo informe contrato".split()
FEM_THINGS = "mesa casa llave factura reserva maleta carta cuenta entrada".split()
# Animate nouns with a masculine and a feminine form (the counterfactual tools change these).
PEOPLE = (
    "amigo abuelo alumno vecino profesor doctor director cocinero camarero compañero hermano hijo primo "
    "niño chico jefe enfermero abogado médico arquitecto"
).split()


def _name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)}"


def _feminine(word: str) -> str:
    return word[:-1] + "a"


def _line(rng: random.Random) -> str:
    choice = rng.randrange(24)
    adjective = rng.choice(ADJECTIVES)
    if rng.random() < 0.5:
        adjective = _feminine(adjective)
    if choice == 0:
        return f"Estoy {adjective}."
    if choice == 1:
        return f"¿Estás {adjective}?"
    if choice == 2:
        return rng.choice(("Dámelo.", "Dámela.", "Cómpralo ya.", "Tráemela mañana.", "Hazlo tú."))
    if choice == 3:
        return f"Estoy {rng.choice(PARTICIPLES)}, {rng.choice(FIRST_NAMES)}."
    if choice == 4:
        return rng.choice(("Este es mío.", "Esta es tuya.", "Eso es bueno.", "Aquella es la mía.", "Ese es nuevo."))
    if choice == 5:
        return f"Hola, {rng.choice(FIRST_NAMES)}, ¿qué tal?"
    if choice == 6:
        return f"Mi número es el {rng.randrange(600_000_000, 700_000_000)}."
    if choice == 7:
        code = f"{rng.choice('ABCDEFGHJK')}{rng.randrange(10_000, 99_999)}"
        return f"El pedido {code} llega el {rng.randrange(1, 29)} de mayo."
    if choice == 8:
        return f"{_name(rng)} me dijo que vendría a las {rng.randrange(7, 23)}:{rng.randrange(60):02d}."
    if choice == 9:
        return f"¿Has visto a {_name(rng)} en {rng.choice(PLACES)}?"
    if choice == 10:
        return f"Mañana viajo a {rng.choice(PLACES)} con {_name(rng)} y {rng.choice(FIRST_NAMES)}."
    if choice == 11:
        thing = rng.choice(THINGS)
        price = f"{rng.randrange(2, 900)},{rng.randrange(100):02d}"
        return f"Te mando el {thing} por correo, son {price} euros."
    if choice == 12:
        thing, name = rng.choice(FEM_THINGS), rng.choice(FIRST_NAMES)
        return f"La {thing} de {name} está en la calle {rng.choice(SURNAMES)} {rng.randrange(1, 250)}."
    if choice == 13:
        user = f"{rng.choice(FIRST_NAMES).lower()}_{rng.choice(SURNAMES).lower()}{rng.randrange(1000)}"
        return f"Escríbeme a {user} cuando puedas."
    if choice == 14:
        return f"No sé si {rng.choice(FIRST_NAMES)} está {adjective} o solo {rng.choice(ADJECTIVES)}."
    if choice == 15:
        return f"Soy {rng.choice(('el', 'la'))} {rng.choice(('nuevo', 'nueva'))}, me llamo {_name(rng)}."
    if choice == 16:
        return f"Ya he pagado {rng.randrange(10, 5000)} euros a {_name(rng)}."
    if choice == 17:
        return f"Lo siento, {rng.choice(FIRST_NAMES)}."
    if choice == 18:
        return f"¿Quedamos el {rng.randrange(1, 31)} a las {rng.randrange(8, 22)} en {rng.choice(PLACES)}?"
    if choice == 20:
        return f"Mi {rng.choice(PEOPLE)} {rng.choice(FIRST_NAMES)} está {adjective}."
    if choice == 21:
        person, place = rng.choice(PEOPLE), rng.choice(PLACES)
        hour = f"{rng.randrange(7, 23)}:{rng.randrange(60):02d}"
        return f"El {person} de {place} llegó a las {hour}."
    if choice == 22:
        return f"¿Conoces al {rng.choice(PEOPLE)} nuevo de {_name(rng)}?"
    if choice == 23:
        person = rng.choice(PEOPLE)
        return f"Los {person}{'s' if person[-1] in 'aeiou' else 'es'} de {rng.choice(FIRST_NAMES)} son muy simpáticos."
    name = rng.choice(FIRST_NAMES)
    surname = rng.choice(SURNAMES) + rng.choice(("", "-" + rng.choice(SURNAMES)))
    return f"Gracias por todo, {name} {surname}."


def synthetic_lines(count: int, seed: int = 13) -> Iterator[str]:
    """`count` lines (without newline) drawn from the templates with a fixed seed."""
    rng = random.Random(seed)
    for _ in range(count):
        yield _line(rng)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    for line in synthetic_lines(args.lines, args.seed):
        sys.stdout.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
