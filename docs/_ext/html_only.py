"""Pages of the HTML book that the PDF edition leaves out (read by latex_edition and pdf/test_pdf.py).

The bilingual term list is set in Chinese, which the English PDF's fonts do not hold, and it
serves the Chinese edition and its translators.
"""

HTML_ONLY = {"terms"}
