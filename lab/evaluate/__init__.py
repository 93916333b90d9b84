"""Evaluations: retrieval on multi-hop questions, the support checker on labelled pairs, learning curves."""
