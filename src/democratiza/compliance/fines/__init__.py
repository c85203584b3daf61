"""Fines for breaching the undertakings (Ley 226 art. 14; GEB art. 11 and 11.1).

``bands`` (which band a breach falls in), ``terms`` (what the program says; the base per
share), ``amount`` (shares × base × the band's percentage), ``account`` (the steps of a
fine's account), the two ways a program adjusts an unpaid fine (``cpi_adjustment``: GEB,
``payment_day_rate``: Central de Seguros), ``case`` (from the facts to the account, for the
command line and the web alike) and ``text`` (the account in words).
"""
