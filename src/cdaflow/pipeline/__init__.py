"""The code the Snakemake workflow runs on, as opposed to the library: rule logging and run signatures,
device checks, SLURM job sizing, conda env files, the claims ledger and the results README."""
