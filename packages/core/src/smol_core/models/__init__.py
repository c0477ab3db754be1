"""The `Model` protocol and the helpers model plugins share."""
