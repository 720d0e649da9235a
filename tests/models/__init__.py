"""Tests of ``interlock.models``: the model factory, the offline and scripted models."""
