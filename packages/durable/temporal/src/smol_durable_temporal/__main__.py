"""`python -m smol_durable_temporal`: the same as `smol-temporal-worker`."""

from smol_durable_temporal.worker import main

main()
