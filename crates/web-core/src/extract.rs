//! HTML and other text bodies turned into the text a model reads: title, lines, links.
