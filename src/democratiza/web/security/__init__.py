"""Who is asking and what they may do: users, sessions and tokens; the route table and its gates."""
