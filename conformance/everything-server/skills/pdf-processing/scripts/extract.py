"""Print the text of one page of a PDF: extract.py FILE PAGE."""
import sys

print(f"page {sys.argv[2]} of {sys.argv[1]}")
