"""HDL designs with their golden models and test benches."""
