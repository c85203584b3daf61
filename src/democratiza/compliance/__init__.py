"""After the sale: payments and their settlement (the Primera Etapa's and a later stage's),
holdings and their events, fines for breaching the undertakings (Ley 226 art. 14) and
credit lines (Ley 226 art. 11)."""
