"""The rules engine: conditions, checks and limits of a program, columnar and exact."""
