"""Result files: what is written and what is read."""
