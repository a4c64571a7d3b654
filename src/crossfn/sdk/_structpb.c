/*
 * crossfn.sdk._structpb: google.protobuf.Struct wire bytes <-> plain Python values, in C.
 *
 * Every Kubernetes object crosses the function protocol as a Struct. Converting
 * one value at a time through upb's Python setters costs about half a
 * microsecond per value, which dominates a function that composes a handful of
 * resources. This module converts a whole dict in one call instead:
 *
 *   encode(dict) -> bytes        the wire bytes of the Struct the dict stands for;
 *                                upb parses them with one MergeFromString.
 *   decode(bytes, integers) -> dict
 *                                a Struct's wire bytes (from SerializeToString)
 *                                as a dict; whole numbers become int when
 *                                `integers` is true.
 *
 * It is an accelerator only: crossfn.sdk.resource keeps the pure-Python
 * conversions and uses them whenever this module is missing or declines a
 * value. encode() raises UnsupportedError (never a user-facing error) for anything
 * that is not an exact dict/list/tuple/str/int/float/bool/None tree, for
 * non-str keys, for nesting deeper than upb parses, and for numbers a double
 * cannot hold; the Python path then converts the value and raises its own
 * error where there is one.
 *
 * Wire format (google/protobuf/struct.proto):
 *   Struct    { map<string, Value> fields = 1; }  entry: key = 1, value = 2
 *   Value     { null_value = 1 (varint); number_value = 2 (double);
 *               string_value = 3; bool_value = 4 (varint);
 *               struct_value = 5; list_value = 6; }   (a oneof)
 *   ListValue { repeated Value values = 1; }
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/*
 * upb refuses to parse messages nested more than 100 deep. Each dict level nests three
 * messages (map entry, Value, Struct) and each list level two (Value, ListValue); a tree
 * deeper than this is left to the Python path, which builds it with setters.
 */
#define MAX_DEPTH 96

static PyObject *Unsupported; /* crossfn.sdk._structpb.UnsupportedError */

/* ---- encoding ------------------------------------------------------------------------------- */

typedef struct {
    char *data;
    Py_ssize_t len;
    Py_ssize_t cap;
} Buf;

static int
buf_grow(Buf *b, Py_ssize_t extra)
{
    Py_ssize_t need = b->len + extra;
    if (need <= b->cap) {
        return 0;
    }
    Py_ssize_t cap = b->cap ? b->cap : 512;
    while (cap < need) {
        cap *= 2;
    }
    char *p = PyMem_Realloc(b->data, (size_t)cap);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

static inline int
put_byte(Buf *b, uint8_t c)
{
    if (b->len == b->cap && buf_grow(b, 1) < 0) {
        return -1;
    }
    b->data[b->len++] = (char)c;
    return 0;
}

static int
varint_size(uint64_t v)
{
    int n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static void
write_varint(char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (char)((v & 0x7F) | 0x80);
        v >>= 7;
    }
    *p = (char)v;
}

static int
put_varint(Buf *b, uint64_t v)
{
    if (buf_grow(b, 10) < 0) {
        return -1;
    }
    write_varint(b->data + b->len, v);
    b->len += varint_size(v);
    return 0;
}

static int
put_bytes(Buf *b, const char *s, Py_ssize_t n)
{
    if (buf_grow(b, n) < 0) {
        return -1;
    }
    memcpy(b->data + b->len, s, (size_t)n);
    b->len += n;
    return 0;
}

/* Start a length-delimited field: write its tag and a one-byte length placeholder. */
static Py_ssize_t
open_field(Buf *b, uint8_t tag)
{
    if (buf_grow(b, 2) < 0) {
        return -1;
    }
    b->data[b->len++] = (char)tag;
    b->data[b->len++] = 0;
    return b->len;
}

/* Finish the field opened at `start`: write its length, moving the body when it needs more bytes. */
static int
close_field(Buf *b, Py_ssize_t start)
{
    uint64_t n = (uint64_t)(b->len - start);
    if (n < 0x80) {
        b->data[start - 1] = (char)n;
        return 0;
    }
    int extra = varint_size(n) - 1;
    if (buf_grow(b, extra) < 0) {
        return -1;
    }
    memmove(b->data + start + extra, b->data + start, (size_t)n);
    write_varint(b->data + start - 1, n);
    b->len += extra;
    return 0;
}

static int
unsupported(const char *why)
{
    PyErr_SetString(Unsupported, why);
    return -1;
}

static int encode_value(Buf *b, PyObject *v, int depth);

/* The entries of a Struct message at nesting level `depth` (the outermost Struct is 1). */
static int
encode_fields(Buf *b, PyObject *d, int depth)
{
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    if (depth + 2 > MAX_DEPTH) {
        return unsupported("nested too deeply");
    }
    while (PyDict_Next(d, &pos, &k, &v)) {
        Py_ssize_t klen;
        const char *key;
        if (!PyUnicode_Check(k)) {
            return unsupported("key is not a str");
        }
        key = PyUnicode_AsUTF8AndSize(k, &klen);
        if (key == NULL) {
            PyErr_Clear();
            return unsupported("key is not valid UTF-8");
        }
        Py_ssize_t entry = open_field(b, 0x0a); /* fields (map entry) */
        if (entry < 0 || put_byte(b, 0x0a) < 0 || put_varint(b, (uint64_t)klen) < 0 ||
            put_bytes(b, key, klen) < 0) {
            return -1;
        }
        Py_ssize_t value = open_field(b, 0x12); /* entry value */
        if (value < 0 || encode_value(b, v, depth + 2) < 0 || close_field(b, value) < 0 ||
            close_field(b, entry) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The values of a ListValue message at nesting level `depth`. */
static int
encode_items(Buf *b, PyObject *seq, int depth)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    if (depth + 1 > MAX_DEPTH) {
        return unsupported("nested too deeply");
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t item = open_field(b, 0x0a); /* values */
        if (item < 0 || encode_value(b, items[i], depth + 1) < 0 || close_field(b, item) < 0) {
            return -1;
        }
    }
    return 0;
}

static int
put_double(Buf *b, double x)
{
    uint64_t bits;
    char le[8];
    memcpy(&bits, &x, sizeof bits);
    for (int i = 0; i < 8; i++) {
        le[i] = (char)(bits >> (8 * i));
    }
    return put_byte(b, 0x11) < 0 ? -1 : put_bytes(b, le, 8);
}

/* The body of one Value message at nesting level `depth`. */
static int
encode_value(Buf *b, PyObject *v, int depth)
{
    if (PyUnicode_Check(v)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(v, &n);
        if (s == NULL) {
            PyErr_Clear();
            return unsupported("str is not valid UTF-8");
        }
        if (put_byte(b, 0x1a) < 0 || put_varint(b, (uint64_t)n) < 0) {
            return -1;
        }
        return put_bytes(b, s, n);
    }
    if (PyDict_CheckExact(v)) {
        Py_ssize_t start = open_field(b, 0x2a);
        if (start < 0 || encode_fields(b, v, depth + 1) < 0) {
            return -1;
        }
        return close_field(b, start);
    }
    if (PyBool_Check(v)) {
        if (put_byte(b, 0x20) < 0) {
            return -1;
        }
        return put_byte(b, v == Py_True ? 1 : 0);
    }
    if (PyFloat_Check(v)) {
        return put_double(b, PyFloat_AS_DOUBLE(v));
    }
    if (PyLong_Check(v)) {
        double x = PyLong_AsDouble(v);
        if (x == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return unsupported("int does not fit a double");
        }
        return put_double(b, x);
    }
    if (v == Py_None) {
        if (put_byte(b, 0x08) < 0) {
            return -1;
        }
        return put_byte(b, 0);
    }
    if (PyList_CheckExact(v) || PyTuple_CheckExact(v)) {
        Py_ssize_t start = open_field(b, 0x32);
        if (start < 0) {
            return -1;
        }
        PyObject *seq = PySequence_Fast(v, "not a sequence");
        if (seq == NULL) {
            return -1;
        }
        int rc = encode_items(b, seq, depth + 1);
        Py_DECREF(seq);
        if (rc < 0) {
            return -1;
        }
        return close_field(b, start);
    }
    return unsupported("not a plain JSON-like value");
}

static PyObject *
structpb_encode(PyObject *Py_UNUSED(module), PyObject *d)
{
    Buf b = {NULL, 0, 0};
    PyObject *out = NULL;
    if (!PyDict_CheckExact(d)) {
        unsupported("not a dict");
        return NULL;
    }
    if (Py_EnterRecursiveCall(" in crossfn.sdk._structpb.encode") == 0) {
        if (encode_fields(&b, d, 1) == 0) {
            out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
        }
        Py_LeaveRecursiveCall();
    }
    PyMem_Free(b.data);
    return out;
}

/* ---- decoding ------------------------------------------------------------------------------- */

typedef struct {
    const uint8_t *p;
    const uint8_t *end;
    int integers;
} Reader;

static int
malformed(void)
{
    PyErr_SetString(PyExc_ValueError, "malformed google.protobuf.Struct bytes");
    return -1;
}

static int
read_varint(Reader *r, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            return malformed();
        }
        uint8_t c = *r->p++;
        v |= (uint64_t)(c & 0x7F) << shift;
        if (c < 0x80) {
            *out = v;
            return 0;
        }
    }
    return malformed();
}

/* Read a length-delimited field's body into `sub`, advancing `r` past it. */
static int
read_sub(Reader *r, Reader *sub)
{
    uint64_t n;
    if (read_varint(r, &n) < 0) {
        return -1;
    }
    if (n > (uint64_t)(r->end - r->p)) {
        return malformed();
    }
    sub->p = r->p;
    sub->end = r->p + n;
    sub->integers = r->integers;
    r->p += n;
    return 0;
}

static int
skip_field(Reader *r, uint64_t tag)
{
    uint64_t v;
    Reader sub;
    switch (tag & 7) {
    case 0:
        return read_varint(r, &v);
    case 1:
        if (r->end - r->p < 8) {
            return malformed();
        }
        r->p += 8;
        return 0;
    case 2:
        return read_sub(r, &sub);
    case 5:
        if (r->end - r->p < 4) {
            return malformed();
        }
        r->p += 4;
        return 0;
    default:
        return malformed();
    }
}

static PyObject *decode_fields(Reader *r);
static PyObject *decode_value(Reader *r);

static PyObject *
decode_number(Reader *r)
{
    uint64_t bits = 0;
    double x;
    if (r->end - r->p < 8) {
        malformed();
        return NULL;
    }
    for (int i = 0; i < 8; i++) {
        bits |= (uint64_t)r->p[i] << (8 * i);
    }
    r->p += 8;
    memcpy(&x, &bits, sizeof x);
    /* As resource.value_to_python: whole numbers in int64 range become int. */
    if (r->integers && x >= -9223372036854775808.0 && x < 9223372036854775808.0 && x == (double)(int64_t)x) {
        return PyLong_FromLongLong((long long)x);
    }
    return PyFloat_FromDouble(x);
}

static PyObject *
decode_list(Reader *r)
{
    PyObject *list = PyList_New(0);
    if (list == NULL) {
        return NULL;
    }
    if (Py_EnterRecursiveCall(" in crossfn.sdk._structpb.decode")) {
        Py_DECREF(list);
        return NULL;
    }
    while (r->p < r->end) {
        uint64_t tag;
        Reader sub;
        if (read_varint(r, &tag) < 0) {
            goto error;
        }
        if (tag != 0x0a) {
            if (skip_field(r, tag) < 0) {
                goto error;
            }
            continue;
        }
        if (read_sub(r, &sub) < 0) {
            goto error;
        }
        PyObject *item = decode_value(&sub);
        if (item == NULL) {
            goto error;
        }
        int rc = PyList_Append(list, item);
        Py_DECREF(item);
        if (rc < 0) {
            goto error;
        }
    }
    Py_LeaveRecursiveCall();
    return list;
error:
    Py_LeaveRecursiveCall();
    Py_DECREF(list);
    return NULL;
}

/* The body of one Value message; the last kind on the wire wins, as protobuf's oneof does. */
static PyObject *
decode_value(Reader *r)
{
    PyObject *result = NULL;
    while (r->p < r->end) {
        uint64_t tag, v;
        Reader sub;
        PyObject *next = NULL;
        if (read_varint(r, &tag) < 0) {
            goto error;
        }
        switch (tag) {
        case 0x08: /* null_value */
            if (read_varint(r, &v) < 0) {
                goto error;
            }
            next = Py_NewRef(Py_None);
            break;
        case 0x11: /* number_value */
            next = decode_number(r);
            break;
        case 0x1a: /* string_value */
            if (read_sub(r, &sub) < 0) {
                goto error;
            }
            next = PyUnicode_DecodeUTF8((const char *)sub.p, sub.end - sub.p, "surrogateescape");
            break;
        case 0x20: /* bool_value */
            if (read_varint(r, &v) < 0) {
                goto error;
            }
            next = PyBool_FromLong(v != 0);
            break;
        case 0x2a: /* struct_value */
            if (read_sub(r, &sub) < 0) {
                goto error;
            }
            next = decode_fields(&sub);
            break;
        case 0x32: /* list_value */
            if (read_sub(r, &sub) < 0) {
                goto error;
            }
            next = decode_list(&sub);
            break;
        default:
            if (skip_field(r, tag) < 0) {
                goto error;
            }
            continue;
        }
        if (next == NULL) {
            goto error;
        }
        Py_XSETREF(result, next);
    }
    return result != NULL ? result : Py_NewRef(Py_None);
error:
    Py_XDECREF(result);
    return NULL;
}

/*
 * upb writes a map's entries in the reverse of the order it iterates them, so
 * entries are collected and inserted last to first: the dict then has the key
 * order that iterating the Struct's `fields` gives, as the Python conversion has.
 */
static PyObject *
decode_fields(Reader *r)
{
    PyObject *pairs = PyList_New(0);
    PyObject *d = NULL;
    if (pairs == NULL) {
        return NULL;
    }
    if (Py_EnterRecursiveCall(" in crossfn.sdk._structpb.decode")) {
        Py_DECREF(pairs);
        return NULL;
    }
    while (r->p < r->end) {
        uint64_t tag;
        Reader entry;
        if (read_varint(r, &tag) < 0) {
            goto done;
        }
        if (tag != 0x0a) {
            if (skip_field(r, tag) < 0) {
                goto done;
            }
            continue;
        }
        if (read_sub(r, &entry) < 0) {
            goto done;
        }
        PyObject *key = NULL, *value = NULL;
        while (entry.p < entry.end) {
            uint64_t etag;
            Reader sub;
            if (read_varint(&entry, &etag) < 0) {
                goto entry_error;
            }
            if (etag == 0x0a) {
                if (read_sub(&entry, &sub) < 0) {
                    goto entry_error;
                }
                PyObject *k = PyUnicode_DecodeUTF8((const char *)sub.p, sub.end - sub.p, "surrogateescape");
                if (k == NULL) {
                    goto entry_error;
                }
                Py_XSETREF(key, k);
            }
            else if (etag == 0x12) {
                if (read_sub(&entry, &sub) < 0) {
                    goto entry_error;
                }
                PyObject *val = decode_value(&sub);
                if (val == NULL) {
                    goto entry_error;
                }
                Py_XSETREF(value, val);
            }
            else if (skip_field(&entry, etag) < 0) {
                goto entry_error;
            }
        }
        if (key == NULL && (key = PyUnicode_FromStringAndSize("", 0)) == NULL) {
            goto entry_error;
        }
        if (value == NULL) {
            value = Py_NewRef(Py_None);
        }
        PyObject *pair = PyTuple_Pack(2, key, value);
        Py_DECREF(key);
        Py_DECREF(value);
        if (pair == NULL) {
            goto done;
        }
        int rc = PyList_Append(pairs, pair);
        Py_DECREF(pair);
        if (rc < 0) {
            goto done;
        }
        continue;
    entry_error:
        Py_XDECREF(key);
        Py_XDECREF(value);
        goto done;
    }
    d = PyDict_New();
    if (d == NULL) {
        goto done;
    }
    for (Py_ssize_t i = PyList_GET_SIZE(pairs) - 1; i >= 0; i--) {
        PyObject *pair = PyList_GET_ITEM(pairs, i);
        PyObject *key = PyTuple_GET_ITEM(pair, 0);
        /* A key repeated on the wire: the last one wins, and keeps its place. */
        int seen = PyDict_Contains(d, key);
        if (seen < 0 || (!seen && PyDict_SetItem(d, key, PyTuple_GET_ITEM(pair, 1)) < 0)) {
            Py_CLEAR(d);
            break;
        }
    }
done:
    Py_LeaveRecursiveCall();
    Py_DECREF(pairs);
    return d;
}

static PyObject *
structpb_decode(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer view;
    PyObject *out = NULL;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "decode(data, integers) takes two arguments");
        return NULL;
    }
    int integers = PyObject_IsTrue(args[1]);
    if (integers < 0 || PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    Reader r = {(const uint8_t *)view.buf, (const uint8_t *)view.buf + view.len, integers};
    out = decode_fields(&r);
    PyBuffer_Release(&view);
    return out;
}

/* ---- module --------------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"encode", (PyCFunction)structpb_encode, METH_O,
     "encode(d, /)\n--\n\nThe google.protobuf.Struct wire bytes of a plain dict; raises UnsupportedError "
     "for values only the Python conversion handles."},
    {"decode", (PyCFunction)(void (*)(void))structpb_decode, METH_FASTCALL,
     "decode(data, integers, /)\n--\n\nA google.protobuf.Struct's wire bytes as a plain dict; whole "
     "numbers become int when integers is true."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "crossfn.sdk._structpb",
    "google.protobuf.Struct wire bytes <-> plain Python values, in C (an accelerator for crossfn.sdk.resource).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__structpb(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) {
        return NULL;
    }
    Unsupported = PyErr_NewExceptionWithDoc("crossfn.sdk._structpb.UnsupportedError",
                                            "A value the C conversion leaves to the Python one.",
                                            PyExc_ValueError, NULL);
    if (Unsupported == NULL || PyModule_AddObjectRef(m, "UnsupportedError", Unsupported) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
