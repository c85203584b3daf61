"""Segunda Etapa and later stages (GEB Decreto 706/2017 art. 3.2–3.3).

The shares not bought in the Primera Etapa are offered to anyone, at or above a minimum
price, through an order book. ``clearing.clear`` finds the single price (a Dutch auction's,
or the seller's cut-off in a book-building) and allocates the offer: orders above the price
in full, orders at it prorated in whole lots. See ``clearing`` for the rules.
"""
