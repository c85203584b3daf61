"""The program designer: designs of a program compared on one population, before the decree."""
