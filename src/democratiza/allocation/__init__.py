"""Exact arithmetic shared by every stage's allocation: floors, whole lots, left-over lots."""
