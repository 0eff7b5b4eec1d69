"""What the Fortran generators share (maint/gen_fortran.py for mpif.h and the
f77 C glue, maint/gen_fortran_mod.py for the `mpi` and `mpi_f08` modules).

    api = load_api(json_path)            # MPI Forum data, keyed by C name
    c_funcs = load_c_spec(srcdir)        # maint/api.spec + maint/mpix.spec
    kinds = load_kinds(srcdir)           # maint/fortran_kinds.spec
    consts = parse_constants(srcdir)     # include/mpi.h (+ mpix.h)

Constants come from include/mpi.h, so C and Fortran cannot drift; the few
Fortran values that differ from C on purpose (MPICH's Fortran attribute
keyvals are the C keyval minus one; MPI_FILE_NULL is 0) are listed in
FORTRAN_VALUE_RULES below. The sentinel COMMON blocks are COMMON_BLOCKS:
mpif.h and the modules declare them identically, and the C glue compares
argument addresses with their members.
"""

import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import binding_spec  # noqa: E402

SRCDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_API_JSON = os.path.join(SRCDIR, '..', 'shared', 'mpi-standard', 'apis.json')


# ---- MPI Forum API data ------------------------------------------------------

def load_api(path=DEFAULT_API_JSON):
    """apis.json as {C name: entry} (entry as in the file: 'name',
    'parameters', 'attributes', 'return_kind', ...)."""
    with open(path) as f:
        data = json.load(f)
    return {entry['name']: entry for entry in data.values()}


def is_callback(entry):
    """Prototypes of user functions (MPI_User_function) and predefined
    callbacks (MPI_COMM_DUP_FN): not procedures a program calls with IERROR."""
    attrs = entry['attributes']
    return bool(attrs['callback'] or attrs['predefined_function'])


def fortran_params(entry, interface='f90'):
    """The parameters the interface ('f90' for mpif.h and `use mpi', 'f08')
    has, in order, ierror included where the interface has it."""
    out = []
    for p in entry['parameters']:
        if f'{interface}_parameter' in p['suppress'].split():
            continue
        if p['kind'] == 'VARARGS':
            continue
        out.append(p)
    return out


def f90_functions(api, c_funcs):
    """(entry, C function or None) for every f90-expressible procedure, in
    the API data's order."""
    out = []
    for name, entry in api.items():
        if not entry['attributes']['f90_expressible'] or is_callback(entry):
            continue
        out.append((entry, c_funcs.get(name)))
    return out


def has_large_variant(entry):
    """A function whose POLY kinds make an MPI_Count form (name_c) in C."""
    return any(p['kind'].startswith('POLY') and p['kind'] != 'POLYFUNCTION'
               for p in entry['parameters'])


def c_names(srcdir=SRCDIR):
    """Every MPI_ function C has: the spec's, the hand-written ones and the
    macros of the headers (MPI_Comm_c2f ...)."""
    names = set(load_c_spec(srcdir))
    for header in ('include/mpi.h', 'include/mpi_proto.h', 'include/mpix.h'):
        path = os.path.join(srcdir, header)
        if os.path.exists(path):
            with open(path) as f:
                text = f.read()
            names.update(re.findall(r'#define\s+(MPIX?_\w+)\(', text))
            names.update(re.findall(r'\b(MPIX?_\w+)\s*\(', text))
    return names


def missing_report(api, c_names_set, fortran_names=None):
    """Lines naming the functions of the API data missing from C (any
    c_expressible one and its _c form, callbacks aside) and, when
    fortran_names is given, the f90-expressible ones missing from that set."""
    lines = []
    for name, entry in sorted(api.items()):
        if is_callback(entry):
            continue
        if entry['attributes']['c_expressible']:
            if name not in c_names_set:
                lines.append(f'not in C: {name}')
            if has_large_variant(entry) and name + '_c' not in c_names_set:
                lines.append(f'not in C: {name}_c')
        if fortran_names is not None and entry['attributes']['f90_expressible'] \
                and name not in fortran_names:
            lines.append(f'not in Fortran: {name}')
    return lines


# ---- our C spec --------------------------------------------------------------

def load_c_spec(srcdir=SRCDIR):
    funcs = binding_spec.read_spec(os.path.join(srcdir, 'maint', 'api.spec'))
    mpix = os.path.join(srcdir, 'maint', 'mpix.spec')
    if os.path.exists(mpix):
        funcs += binding_spec.read_spec(mpix)
    return {f.name: f for f in funcs}


# ---- kinds table -------------------------------------------------------------

class KindType:
    def __init__(self, kind, f90, f08):
        self.kind = kind
        self.f90 = f90  # Fortran 90 type ('choice' for a buffer of any type)
        self.f08 = f08  # Fortran 2008 type


def load_kinds(srcdir=SRCDIR):
    """maint/fortran_kinds.spec: `KIND f90=TYPE f08=TYPE` per line."""
    table = {}
    path = os.path.join(srcdir, 'maint', 'fortran_kinds.spec')
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            words = shlex.split(line)
            fields = dict(w.split('=', 1) for w in words[1:])
            if 'f90' not in fields or 'f08' not in fields:
                raise SystemExit(f'{path}:{lineno}: need f90= and f08=')
            table[words[0]] = KindType(words[0], fields['f90'], fields['f08'])
    return table


def check_kinds(api, kinds):
    """Kinds used by a Fortran-expressible function that the table lacks."""
    used = set()
    for entry in api.values():
        attrs = entry['attributes']
        if not (attrs['f90_expressible'] or attrs['f08_expressible']):
            continue
        for p in entry['parameters']:
            used.add(p['kind'])
    return sorted(k for k in used if k not in kinds and k != 'VARARGS')


# ---- constants from include/mpi.h -------------------------------------------

class Constant:
    def __init__(self, name, ftype, value):
        self.name = name
        self.ftype = ftype  # 'INTEGER', 'INTEGER(KIND=MPI_OFFSET_KIND)', 'LOGICAL', ...
        self.value = value  # int or bool

    def fortran_value(self):
        if isinstance(self.value, bool):
            return '.TRUE.' if self.value else '.FALSE.'
        return str(self.value)


# Names in mpi.h that are C-only: the tools interface, the C/Fortran status
# interop sizes, pointer sentinels (the COMMON blocks stand for those).
C_ONLY = re.compile(r'^(MPI_T_|MPI_F_|MPI_F08_|MPIX_|MPI_.*_H$|MPI_BOTTOM$|MPI_IN_PLACE$|'
                    r'MPI_STATUS(ES)?_IGNORE$|MPI_ERRCODES_IGNORE$|MPI_ARGVS?_NULL$|'
                    r'MPI_UNWEIGHTED$|MPI_WEIGHTS_EMPTY$|MPI_INCLUDED$|STMPI_)')

# Constants whose Fortran type is not INTEGER.
FORTRAN_TYPES = {
    'MPI_DISPLACEMENT_CURRENT': 'INTEGER(KIND=MPI_OFFSET_KIND)',
}

# The predefined attribute keyvals (odd in C) are even in Fortran, the C
# value plus one, as in MPICH: the attribute layer returns a Fortran INTEGER
# for those.
FORTRAN_KEYVALS = ('MPI_TAG_UB', 'MPI_HOST', 'MPI_IO', 'MPI_WTIME_IS_GLOBAL', 'MPI_UNIVERSE_SIZE',
                   'MPI_LASTUSEDCODE', 'MPI_APPNUM', 'MPI_WIN_BASE', 'MPI_WIN_SIZE',
                   'MPI_WIN_DISP_UNIT', 'MPI_WIN_CREATE_FLAVOR', 'MPI_WIN_MODEL')


# String length limits count the C terminating NUL; Fortran's do not.
FORTRAN_STRING_LIMITS = re.compile(r'^MPI_MAX_(?!.*ATTR).*(NAME|STRING|KEY|VAL|LEN)$')


def FORTRAN_VALUE_RULES(name, value):
    if name in FORTRAN_KEYVALS:
        return value + 1
    if FORTRAN_STRING_LIMITS.match(name):
        return value - 1
    if 2**31 <= value < 2**32:
        return value - 2**32  # a handle with the top bit set: a negative INTEGER
    return value


_CAST = re.compile(r'\(\s*\(?\s*(MPI_[A-Za-z_]+|int|long|unsigned)\s*\)\s*')


def _eval(expr, known):
    """The integer value of a C constant expression of mpi.h, or None."""
    expr = expr.split('/*', 1)[0].strip()
    if not expr:
        return None
    if re.search(r'\*\s*\)|\bNULL\b|"', expr):
        return None  # a pointer or a string
    expr = _CAST.sub('(', expr)
    expr = re.sub(r'\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b', r'\1', expr)

    def name_value(m):
        if m.group(0) in known:
            return str(known[m.group(0)])
        raise KeyError(m.group(0))
    try:
        expr = re.sub(r'\b[A-Za-z_]\w*\b', name_value, expr)
        if not re.fullmatch(r'[\s0-9a-fA-FxX()+\-*/|&<>~]*', expr):
            return None
        return int(eval(expr, {'__builtins__': {}}))
    except (KeyError, SyntaxError, TypeError, ValueError, ZeroDivisionError):
        return None


def _c_int_size(ctype):
    return {'int': 4, 'long': 8, 'long long': 8, 'int64_t': 8, 'int32_t': 4}.get(ctype)


def parse_constants(srcdir=SRCDIR, headers=('include/mpi.h',)):
    """Every integer constant of the headers Fortran has, in header order,
    with MPICH's Fortran value, followed by the Fortran-only ones."""
    known, order = {}, []
    typedefs = {}
    status_fields = []
    for header in headers:
        with open(os.path.join(srcdir, header)) as f:
            text = f.read()
        for m in re.finditer(r'typedef\s+([a-z ]+?)\s+(MPI_\w+)\s*;', text):
            typedefs[m.group(2)] = m.group(1)
        m = re.search(r'typedef struct MPI_Status \{(.*?)\}', text, re.S)
        if m:
            status_fields = re.findall(r'(\w+)\s*;', m.group(1))
        for m in re.finditer(r'^#\s*define\s+(MPI_\w+)[ \t]+(.+)$', text, re.M):
            name, expr = m.group(1), m.group(2)
            value = _eval(expr, known)
            if value is None:
                continue
            known[name] = value
            order.append(name)
    consts = []
    sizes = {}
    for c_type, kind in (('MPI_Aint', 'MPI_ADDRESS_KIND'), ('MPI_Offset', 'MPI_OFFSET_KIND'),
                         ('MPI_Count', 'MPI_COUNT_KIND'), ('MPI_Fint', 'MPI_INTEGER_KIND')):
        sizes[kind] = _c_int_size(typedefs.get(c_type, ''))
    # The status: INTEGER(MPI_STATUS_SIZE), fields at MPI_SOURCE etc. (1-based)
    consts.append(Constant('MPI_STATUS_SIZE', 'INTEGER', len(status_fields)))
    for field in ('MPI_SOURCE', 'MPI_TAG', 'MPI_ERROR'):
        consts.append(Constant(field, 'INTEGER', status_fields.index(field) + 1))
    for kind, size in sizes.items():
        consts.append(Constant(kind, 'INTEGER', size))
    seen = {c.name for c in consts}
    for name in order:
        if name in seen or C_ONLY.match(name):
            continue
        seen.add(name)
        value = FORTRAN_VALUE_RULES(name, known[name])
        ftype = FORTRAN_TYPES.get(name, 'INTEGER')
        if ftype == 'INTEGER' and not -2**31 <= value < 2**31:
            ftype = 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        consts.append(Constant(name, ftype, value))
    # Fortran-only values
    consts.append(Constant('MPI_FILE_NULL', 'INTEGER', 0)) if 'MPI_FILE_NULL' not in seen else None
    consts.append(Constant('MPI_SUBARRAYS_SUPPORTED', 'LOGICAL', False))
    consts.append(Constant('MPI_ASYNC_PROTECTS_NONBLOCKING', 'LOGICAL', False))
    return consts


# ---- sentinel COMMON blocks (MPICH's names and layout) -----------------------

class CommonBlock:
    def __init__(self, name, members):
        self.name = name        # Fortran name (the symbol is lower case + '_')
        self.members = members  # [(name, Fortran declaration, C member declaration)]

    @property
    def symbol(self):
        return self.name.lower() + '_'


COMMON_BLOCKS = [
    CommonBlock('MPIFCMB5', [('MPI_UNWEIGHTED', 'INTEGER MPI_UNWEIGHTED', 'MPI_Fint unweighted')]),
    CommonBlock('MPIFCMB9', [('MPI_WEIGHTS_EMPTY', 'INTEGER MPI_WEIGHTS_EMPTY',
                              'MPI_Fint weights_empty')]),
    CommonBlock('MPIPRIV1', [('MPI_BOTTOM', 'INTEGER MPI_BOTTOM', 'MPI_Fint bottom'),
                             ('MPI_IN_PLACE', 'INTEGER MPI_IN_PLACE', 'MPI_Fint in_place'),
                             ('MPI_STATUS_IGNORE', 'INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)',
                              'MPI_Fint status_ignore[MPI_F_STATUS_SIZE]')]),
    CommonBlock('MPIPRIV2', [('MPI_STATUSES_IGNORE',
                              'INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)',
                              'MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE]'),
                             ('MPI_ERRCODES_IGNORE', 'INTEGER MPI_ERRCODES_IGNORE(1)',
                              'MPI_Fint errcodes_ignore[1]')]),
    CommonBlock('MPIPRIVC', [('MPI_ARGVS_NULL', 'CHARACTER*1 MPI_ARGVS_NULL(1,1)',
                              'char argvs_null[1]'),
                             ('MPI_ARGV_NULL', 'CHARACTER*1 MPI_ARGV_NULL(1)',
                              'char argv_null[1]')]),
]

# Procedures mpif.h declares EXTERNAL (predefined callbacks and functions
# with a result), with their result type where they have one.
EXTERNALS = [
    ('MPI_DUP_FN', None), ('MPI_NULL_DELETE_FN', None), ('MPI_NULL_COPY_FN', None),
    ('MPI_COMM_DUP_FN', None), ('MPI_COMM_NULL_DELETE_FN', None), ('MPI_COMM_NULL_COPY_FN', None),
    ('MPI_WIN_DUP_FN', None), ('MPI_WIN_NULL_DELETE_FN', None), ('MPI_WIN_NULL_COPY_FN', None),
    ('MPI_TYPE_DUP_FN', None), ('MPI_TYPE_NULL_DELETE_FN', None),
    ('MPI_TYPE_NULL_COPY_FN', None), ('MPI_CONVERSION_FN_NULL', None),
    ('MPI_WTIME', 'DOUBLE PRECISION'), ('MPI_WTICK', 'DOUBLE PRECISION'),
    ('PMPI_WTIME', 'DOUBLE PRECISION'), ('PMPI_WTICK', 'DOUBLE PRECISION'),
    ('MPI_AINT_ADD', 'INTEGER(KIND=MPI_ADDRESS_KIND)'),
    ('MPI_AINT_DIFF', 'INTEGER(KIND=MPI_ADDRESS_KIND)'),
    ('PMPI_AINT_ADD', 'INTEGER(KIND=MPI_ADDRESS_KIND)'),
    ('PMPI_AINT_DIFF', 'INTEGER(KIND=MPI_ADDRESS_KIND)'),
]


def manglings(name):
    """The four link names of a Fortran procedure (MPICH's set)."""
    low = name.lower()
    return [low + '_', low + '__', low, name.upper()]


if __name__ == '__main__':
    # A quick look: python3 maint/fortran_common.py [apis.json]
    api = load_api(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_API_JSON)
    for line in missing_report(api, c_names()):
        print(line)
    for kind in check_kinds(api, load_kinds()):
        print(f'kind not in maint/fortran_kinds.spec: {kind}')
    for c in parse_constants():
        print(c.name, c.ftype, c.fortran_value())
