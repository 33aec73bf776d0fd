"""One Markdown table writer for every generated table of the docs."""


def table(header, rows, align=None):
    """A Markdown table; ``align``: one separator cell per column ('---',
    '---:'), left-aligned by default."""
    align = align or ['---'] * len(header)
    lines = ['| ' + ' | '.join(header) + ' |', '| ' + ' | '.join(align) + ' |']
    lines += ['| ' + ' | '.join(str(cell) for cell in row) + ' |'
              for row in rows]
    return '\n'.join(lines)


def numbers_table(header, rows):
    """A table whose first column is a label and the others numbers."""
    return table(header, rows, ['---'] + ['---:'] * (len(header) - 1))
