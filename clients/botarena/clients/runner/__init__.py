"""The match runner behind ``botarena match``: schedules games, collects results, reports."""
