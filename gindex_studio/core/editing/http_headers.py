"""The http request node's Headers as Node-RED 4's editor reads and writes them (21-httprequest.html).

A header is ``{"keyType", "keyValue", "valueType", "valueValue"}``: ``keyType`` is a known header
name (its ``keyValue`` then ""), ``"other"`` (the name typed in ``keyValue``) or ``"msg"`` (a
message property holding it); the value likewise is one of the header's known values, ``other``
or ``msg``. Pure Python: no Qt.
"""
from __future__ import annotations

#: the header names the editor's menu offers
NAMES = ("Accept", "Accept-Encoding", "Accept-Language", "Authorization", "Content-Type", "Cache-Control",
         "User-Agent", "Location")
TYPED = ("other", "msg")
#: known values per header name (lower case)
VALUES = {
    "accept": ("text/plain", "text/html", "application/json", "application/xml"),
    "accept-encoding": ("gzip", "deflate", "compress", "br", "gzip, deflate", "gzip, deflate, br"),
    "accept-language": ("*", "en-GB, en-US, en;q=0.9", "de-AT, de-DE;q=0.9, en;q=0.5", "es-mx,es,en;q=0.5",
                        "fr-CH, fr;q=0.9, en;q=0.8",
                        "zh-CN, zh-TW; q = 0.9, zh-HK; q = 0.8, zh; q = 0.7, en; q = 0.6", "ja-JP, jp"),
    "content-type": ("text/css", "text/plain", "text/html", "application/json", "application/octet-stream",
                     "application/pdf", "application/xml", "application/zip", "multipart/form-data", "audio/aac",
                     "audio/ac3", "audio/basic", "audio/mp4", "audio/ogg", "image/bmp", "image/gif", "image/jpeg",
                     "image/png", "image/tiff"),
    "cache-control": ("max-age=0", "max-age=86400", "no-cache"),
    "user-agent": ("Mozilla/5.0",),
}


def name_types() -> tuple[str, ...]:
    return NAMES + TYPED


def value_types(key_type: str) -> tuple[str, ...]:
    """What the value menu offers for a header named by ``key_type``."""
    return VALUES.get((key_type or "").lower(), ()) + TYPED


def read_header(h: dict) -> tuple[str, str, str, str]:
    """(key type, key text, value type, value text) as the editor shows a stored header: a type
    it does not offer becomes ``other`` with the stored text."""
    kt, kv = str(h.get("keyType") or "other"), str(h.get("keyValue") or "")
    vt, vv = str(h.get("valueType") or "other"), str(h.get("valueValue") or "")
    if kt not in name_types():
        kt, kv = "other", kv or kt
    if vt not in value_types(kt):
        vt, vv = "other", vv or vt
    return kt, kv, vt, vv


def write_header(kt: str, kv: str, vt: str, vv: str) -> dict:
    """The header as saving writes it (a known name or value keeps no text).

    >>> write_header("Content-Type", "x", "application/json", "")
    {'keyType': 'Content-Type', 'keyValue': '', 'valueType': 'application/json', 'valueValue': ''}
    """
    return {"keyType": kt, "keyValue": kv if kt in TYPED else "", "valueType": vt,
            "valueValue": vv if vt in TYPED else ""}
