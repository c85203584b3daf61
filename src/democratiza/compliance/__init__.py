"""Compliance after the sale: fines for breaching the undertakings (Ley 226 art. 14)."""
