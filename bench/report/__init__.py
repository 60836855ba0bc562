"""What is made from results: the leaderboard, comparisons, plots."""
