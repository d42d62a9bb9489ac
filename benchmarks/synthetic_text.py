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


# One template per kind of line; every {slot} is drawn afresh by `_Slots`.
TEMPLATES = (
    "Estoy {adjective}.",
    "¿Estás {adjective}?",
    "{command}",
    "Estoy {participle}, {first}.",
    "{possessive}",
    "Hola, {first}, ¿qué tal?",
    "Mi número es el {phone}.",
    "El pedido {code} llega el {day} de mayo.",
    "{name} me dijo que vendría a las {time}.",
    "¿Has visto a {name} en {place}?",
    "Mañana viajo a {place} con {name} y {first}.",
    "Te mando el {thing} por correo, son {price} euros.",
    "La {fem_thing} de {first} está en la calle {surname} {street_number}.",
    "Escríbeme a {user} cuando puedas.",
    "No sé si {first} está {adjective} o solo {masculine_adjective}.",
    "Soy {article} {nuevo}, me llamo {name}.",
    "Ya he pagado {amount} euros a {name}.",
    "Lo siento, {first}.",
    "¿Quedamos el {day} a las {hour} en {place}?",
    "Gracias por todo, {first} {surnames}.",
    "Mi {person} {first} está {adjective}.",
    "El {person} de {place} llegó a las {time}.",
    "¿Conoces al {person} nuevo de {name}?",
    "Los {people} de {first} son muy simpáticos.",
)
# Slots drawn from one word list.
WORD_SLOTS = {"first": FIRST_NAMES, "surname": SURNAMES, "place": PLACES, "participle": PARTICIPLES,
              "masculine_adjective": ADJECTIVES, "thing": THINGS, "fem_thing": FEM_THINGS, "person": PEOPLE,
              "article": ("el", "la"), "nuevo": ("nuevo", "nueva"),
              "command": ("Dámelo.", "Dámela.", "Cómpralo ya.", "Tráemela mañana.", "Hazlo tú."),
              "possessive": ("Este es mío.", "Esta es tuya.", "Eso es bueno.", "Aquella es la mía.", "Ese es nuevo.")}

# Slots drawn as a whole number in [low, high).
NUMBER_SLOTS = {"phone": (600_000_000, 700_000_000), "day": (1, 29), "street_number": (1, 250),
                "amount": (10, 5000), "hour": (8, 22)}


class _Slots(dict):
    """Fills a template's slots with values drawn from `rng`."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def __missing__(self, slot: str) -> str:
        rng = self.rng
        if slot in WORD_SLOTS:
            return rng.choice(WORD_SLOTS[slot])
        if slot == "adjective":  # masculine or feminine, as speakers of either gender write
            adjective = rng.choice(ADJECTIVES)
            return adjective[:-1] + "a" if rng.random() < 0.5 else adjective
        if slot == "name":
            return f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)}"
        if slot == "surnames":
            return rng.choice(SURNAMES) + rng.choice(("", "-" + rng.choice(SURNAMES)))
        if slot == "people":
            person = rng.choice(PEOPLE)
            return person + ("s" if person[-1] in "aeiou" else "es")
        if slot == "user":
            return f"{rng.choice(FIRST_NAMES).lower()}_{rng.choice(SURNAMES).lower()}{rng.randrange(1000)}"
        if slot == "code":
            return f"{rng.choice('ABCDEFGHJK')}{rng.randrange(10_000, 99_999)}"
        if slot == "time":
            return f"{rng.randrange(7, 23)}:{rng.randrange(60):02d}"
        if slot == "price":
            return f"{rng.randrange(2, 900)},{rng.randrange(100):02d}"
        low, high = NUMBER_SLOTS[slot]
        return str(rng.randrange(low, high))


def _line(rng: random.Random) -> str:
    return rng.choice(TEMPLATES).format_map(_Slots(rng))


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
