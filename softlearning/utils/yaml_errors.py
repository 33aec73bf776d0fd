"""PyYAML's errors in one line: its messages span several, quoting the
offending line; a one-line error names the problem and where it is."""


def yaml_problem(error):
    """``error`` (a yaml.YAMLError) as 'problem at line L, column C'."""
    mark = getattr(error, 'problem_mark', None)
    problem = getattr(error, 'problem', None) or (
        str(error).strip().splitlines() or [''])[0]
    where = (f' at line {mark.line + 1}, column {mark.column + 1}'
             if mark is not None else '')
    return f'{problem}{where}'
