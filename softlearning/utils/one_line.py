"""Other libraries' errors in the one line a softlearning error is: the
first line of a message (pyarrow's, a user's environment's), and PyYAML's
problem and where it is (its messages span several, quoting the line)."""


def first_line(error):
    """The first line of ``error``'s message ('' for none)."""
    return (str(error).strip().splitlines() or [''])[0]


def yaml_problem(error):
    """``error`` (a yaml.YAMLError) as 'problem at line L, column C'."""
    mark = getattr(error, 'problem_mark', None)
    problem = getattr(error, 'problem', None) or first_line(error)
    where = (f' at line {mark.line + 1}, column {mark.column + 1}'
             if mark is not None else '')
    return f'{problem}{where}'
