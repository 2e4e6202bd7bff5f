"""Proof-number search (PN and df-pn) over any game: transposition table, proof trees and an
independent proof checker."""
