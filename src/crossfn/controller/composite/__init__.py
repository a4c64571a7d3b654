"""composite."""
