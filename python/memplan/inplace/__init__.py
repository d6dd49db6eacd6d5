"""memplan's in-place analysis (One-Shot-style RaW conflict analysis)."""
