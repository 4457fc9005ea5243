"""ARX programmable processing element (PPE) and its BMW-512 golden model."""
