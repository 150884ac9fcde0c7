"""HTTP layer: flask-smorest blueprints turning requests into service calls."""
