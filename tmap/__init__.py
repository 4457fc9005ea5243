"""TMAP: AIG, reduced-cut TLUT mapping and partial parameterized configuration (PPC) construction."""
