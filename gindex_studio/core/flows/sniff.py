"""What a file that is not a flow is, from its first bytes: so "not valid JSON: Expecting value"
becomes "… is a PNG image, not a flow". Pure Python.

>>> binary_kind(b"\\x89PNG\\r\\n\\x1a\\n....")
'a PNG image'
>>> binary_kind(b'[{"id": "a"}]') is None
True
>>> binary_kind(b"abc\\x00def")
'a binary file'
"""
from __future__ import annotations

#: leading bytes → what the file is
MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"BM", "a BMP image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or an Office document)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x7fELF", "a program (ELF executable)"),
    (b"MZ", "a Windows program"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x00\x00\x01\x00", "an icon image"),
)


def binary_kind(data: bytes) -> str | None:
    """What ``data`` is when it is a known binary format or holds NUL bytes near its start
    (text flows never do), else None. WebP and other RIFF files are named by their form type."""
    head = bytes(data[:64])
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "a WebP image"
    for magic, kind in MAGIC:
        if head.startswith(magic):
            return kind
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return None  # a text file with a byte-order mark
    if b"\x00" in bytes(data[:4096]):
        return "a binary file"
    return None
