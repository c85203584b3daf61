"""An offer: a program instantiated with its parameters, its states and its events."""
