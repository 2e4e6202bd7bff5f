"""`solver serve`: the tables and the prover over HTTP (:mod:`solver.serve.app`), speaking the
Lichess tablebase API for chess (:mod:`solver.serve.tablebase`), with our own endpoints for the
games the prover solves (:mod:`solver.serve.solved_games`) and a page with a board (``static/``)."""
