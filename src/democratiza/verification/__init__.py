"""Results anyone can verify: the public package of an adjudication, and its verifier."""
