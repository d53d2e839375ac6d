"""Shared set-up: the package from this checkout, the checkout's root, the binary under test."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("SC_COPYRIGHT_MESSAGE", "DISABLE")
