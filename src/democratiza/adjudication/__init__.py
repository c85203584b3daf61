"""Adjudication of the Primera Etapa (Ley 226 de 1995).

When valid demand fits in the offer, everyone gets their valid quantity. When it does not,
the program file names a method (``igualitario_redistribucion``, ``proporcional`` or
``lineal_proporcional``), a lot size and a remainder rule, and ``adjudicate.allocate``
shares the offer out in whole lots, exactly, in integers (``allocation.methods`` has the
three rules, ``allocation.remainder`` the left-over lots); a program's joint caps on a
group of categories apply first (``joint``). ``record`` keeps an offer's adjudication as a
reproducible record.
"""
