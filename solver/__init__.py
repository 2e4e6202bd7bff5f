"""The player (alpha-beta with database and prover leaves), the UCI front end and the `solver`
command line."""
