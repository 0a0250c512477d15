"""Attention Lens: attention, stage by stage."""
