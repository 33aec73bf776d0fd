"""Where results go: a local folder, or a URI that pyarrow understands
(``s3://bucket/path``, ``gs://bucket/path``, with options in the query:
``s3://bucket/path?endpoint_override=127.0.0.1:9000&scheme=http``).

Paths are built URI-aware: a URI keeps its scheme and query, and never goes
through ``os.path.abspath``/``expanduser``/``os.path.join``.
"""

import os
import re
import urllib.parse
import uuid

from softlearning.utils.one_line import first_line


def is_uri(path):
    return '://' in str(path)


def folder_name(text):
    """``text`` as a folder name that shells and tools take as it is
    (letters of any alphabet, digits and ``_.=+-``; anything else, a space
    too, becomes '_'): a user's domain 'my_module:PointMass' is the folder
    my_module.PointMass."""
    return re.sub(r'[^\w.=+-]', '_', text.replace(':', '.'))


def normalize(path):
    """A local path made absolute (``~`` expanded); a URI unchanged."""
    path = str(path)
    return path if is_uri(path) else os.path.abspath(os.path.expanduser(path))


def join(root, *parts):
    """``root/part/...``; for a URI the parts go into its path, before the
    query string."""
    parts = [str(part).strip('/') for part in parts if str(part)]
    if not is_uri(root):
        return os.path.join(normalize(root), *parts)
    split = urllib.parse.urlsplit(root)
    path = '/'.join([split.path.rstrip('/'), *parts])
    return urllib.parse.urlunsplit(split._replace(path=path))


def filesystem(path):
    """(pyarrow filesystem, path within it) of a local path or a URI."""
    import pyarrow.fs
    if not is_uri(path):
        return pyarrow.fs.LocalFileSystem(), normalize(path)
    return pyarrow.fs.FileSystem.from_uri(path)


def exists(path):
    import pyarrow.fs
    fs, fs_path = filesystem(path)
    return fs.get_file_info(fs_path).type != pyarrow.fs.FileType.NotFound


def files_named(path, prefixes):
    """(pyarrow filesystem, sorted paths in it) of the files directly in
    folder ``path`` whose names start with one of ``prefixes``."""
    import pyarrow.fs
    fs, root = filesystem(path)
    return fs, sorted(
        info.path for info in fs.get_file_info(
            pyarrow.fs.FileSelector(root, allow_not_found=True))
        if info.base_name.startswith(tuple(prefixes)))


def check_writable(path):
    """Creates ``path`` if needed and writes and deletes a small file there;
    raises OSError naming the path and the storage's own message."""
    try:
        fs, fs_path = filesystem(path)
    except Exception as error:  # pyarrow's ArrowInvalid: an unknown scheme
        raise OSError(
            f"cannot write to '{path}': {first_line(error)} (results go to a "
            "folder, or a URI of s3://, gs:// or hdfs://)") from None
    probe = f"{fs_path.rstrip('/')}/.softlearning-write-test-{uuid.uuid4().hex}"
    try:
        fs.create_dir(fs_path, recursive=True)
        with fs.open_output_stream(probe) as stream:
            stream.write(b'ok')
        fs.delete_file(probe)
    except Exception as error:  # pyarrow raises OSError or its own errors
        raise OSError(
            f"cannot write to '{path}': {first_line(error)}") from None

