#!/usr/bin/env python3
"""Generates the Fortran modules: `use mpi` and `use mpi_f08`.

    maint/gen_fortran_mod.py [--apis PATH] [--out DIR]

Reads the MPI Forum API data (maint/fortran_api.spec, the facts of apis.json
that maint/make_spec.py keeps; --apis also takes apis.json itself: which
functions are expressible in Fortran 90 / 2008, parameter kinds and
directions, ASYNCHRONOUS, callback interfaces), maint/api.spec (the C
signatures we implement) and the constant table of maint/fortran_common.py
(parsed from include/mpi.h). Writes

    src/binding/fortran/mod/gen/mpi_constants.f90   constants, sentinels
    src/binding/fortran/mod/gen/mpi_interfaces.f90  explicit interfaces
    src/binding/fortran/mod/gen/mpi.f90             module mpi (+ MPI_Sizeof)
    src/binding/f08/gen/...                         see maint/gen_fortran_f08.py

The `use mpi` interfaces name the same external f77 entry points as mpif.h
(mpi_send_ ...), so a wrong argument count or type is a compile error while
the call itself is the f77 call. Choice buffers carry gfortran's
NO_ARG_CHECK attribute. See src/binding/f08/README.md.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import binding_spec  # noqa: E402

DEFAULT_APIS = os.path.join(HERE, 'fortran_api.spec')

HANDLE_TYPES = ['MPI_Comm', 'MPI_Datatype', 'MPI_Errhandler', 'MPI_File', 'MPI_Group',
                'MPI_Info', 'MPI_Message', 'MPI_Op', 'MPI_Request', 'MPI_Session', 'MPI_Win']

CHOICE_KINDS = {'BUFFER', 'C_BUFFER3', 'C_BUFFER4'}
ADDRESS_KINDS = {'ATTRIBUTE_VAL', 'EXTRA_STATE'}
SMALL_VOID_KINDS = {'ATTRIBUTE_VAL_10', 'EXTRA_STATE2'}

INT_KINDS = {'int': 'INTEGER', 'MPI_Fint': 'INTEGER',
             'MPI_Aint': 'INTEGER(KIND=MPI_ADDRESS_KIND)',
             'MPI_Count': 'INTEGER(KIND=MPI_COUNT_KIND)',
             'MPI_Offset': 'INTEGER(KIND=MPI_OFFSET_KIND)',
             'double': 'DOUBLE PRECISION'}

# Fortran-only procedures, written by hand in the generated modules.
SPECIAL = {'MPI_Sizeof', 'MPI_F_sync_reg', 'MPI_Status_f2f08', 'MPI_Status_f082f',
           'MPI_Wtime', 'MPI_Wtick', 'MPI_Pcontrol'}


def load_apis(path):
    """The API data keyed as in apis.json (lower-case names), in its order."""
    import fortran_common
    return {name.lower(): entry for name, entry in fortran_common.load_api(path).items()}


def load_spec():
    spec = {}
    for name in ('api.spec',):
        for fn in binding_spec.read_spec(os.path.join(HERE, name)):
            spec[fn.name] = fn
    return spec


def fortran_params(api, lang, large=False):
    """The parameters of a Fortran binding (lang 'f90' or 'f08'), ierror included;
    `large`: of the large-count (_c) form."""
    return [p for p in api['parameters'] if f'{lang}_parameter' not in p['suppress']
            and (large or not p['large_only'])]


def is_choice(p):
    return p['kind'] in CHOICE_KINDS


def expressible(apis, spec, lang):
    """(api entry, C spec function) pairs of the functions of a Fortran binding."""
    out = []
    for key in sorted(apis):
        api = apis[key]
        attrs = api['attributes']
        if attrs['callback'] or attrs['predefined_function'] or not attrs[f'{lang}_expressible']:
            continue
        if api['name'] in SPECIAL:
            continue
        fn = spec.get(api['name'])
        if fn is None:
            continue
        out.append((api, fn))
    return out


def missing_in_c(apis, spec, lang):
    return sorted(a['name'] for a in apis.values()
                  if a['attributes'][f'{lang}_expressible'] and not a['attributes']['callback']
                  and not a['attributes']['predefined_function'] and a['name'] not in SPECIAL
                  and a['name'] not in spec)


# ---------------------------------------------------------------------------
# Constants (from maint/fortran_common.py, or include/mpi.h directly)
# ---------------------------------------------------------------------------

class Constant:
    def __init__(self, name, ftype, value, handle=None):
        self.name = name
        self.ftype = ftype      # INTEGER, INTEGER(KIND=MPI_ADDRESS_KIND), LOGICAL, ...
        self.value = value      # Fortran spelling of the value
        self.handle = handle    # 'MPI_Comm' ... for handle constants


def fortran_int(v):
    if v == -2**31:
        return '(-2147483647-1)'
    return str(v)


def _c_int_value(text, known):
    text = text.split('/*')[0].strip()
    m = re.fullmatch(r'\(\((MPI_\w+)\)\s*(-?(?:0x[0-9a-fA-F]+|\d+))\)', text)
    cast = None
    if m:
        cast, text = m.group(1), m.group(2)
    text = text.strip()
    while text.startswith('(') and text.endswith(')'):
        text = text[1:-1].strip()
    if re.fullmatch(r'-?(0x[0-9a-fA-F]+|\d+)', text):
        v = int(text, 0)
        if v >= 2**31:
            v -= 2**32
        return cast, v
    if text in known:
        return known[text]
    return None


def constants_from_header(path):
    """(name -> (C cast type or None, int value)) for the integer macros of a header."""
    known = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'#define\s+(MPIX?_[A-Z0-9_]+)\s+(.+)$', line)
            if not m:
                continue
            r = _c_int_value(m.group(2), known)
            if r is not None:
                known[m.group(1)] = r
    return known


FORTRAN_ONLY = [
    Constant('MPI_ADDRESS_KIND', 'INTEGER', '8'),
    Constant('MPI_OFFSET_KIND', 'INTEGER', '8'),
    Constant('MPI_COUNT_KIND', 'INTEGER', '8'),
    Constant('MPI_INTEGER_KIND', 'INTEGER', '4'),
    Constant('MPI_STATUS_SIZE', 'INTEGER', '5'),
    Constant('MPI_SOURCE', 'INTEGER', '3'),
    Constant('MPI_TAG', 'INTEGER', '4'),
    Constant('MPI_ERROR', 'INTEGER', '5'),
]

SKIP_CONSTANTS = {'MPI_F_STATUS_SIZE', 'MPI_F_SOURCE', 'MPI_F_TAG', 'MPI_F_ERROR', 'STMPI',
                  'MPI_SUBARRAYS_SUPPORTED', 'MPI_ASYNC_PROTECTS_NONBLOCKING'}


def constant_table():
    """The constants both modules declare: maint/fortran_common.py's table
    (the values mpif.h has), each handle constant with its C handle type."""
    import fortran_common
    casts = {}
    for header in ('mpi.h',):
        for name, (cast, _) in constants_from_header(os.path.join(ROOT, 'include', header)).items():
            casts[name] = cast
    consts = []
    for c in fortran_common.parse_constants(ROOT):
        if c.name in SKIP_CONSTANTS:
            continue
        handle = casts.get(c.name)
        consts.append(Constant(c.name, c.ftype, c.fortran_value(),
                               handle if handle in HANDLE_TYPES else None))
    return consts


# ---------------------------------------------------------------------------
# Types of dummy arguments
# ---------------------------------------------------------------------------

def c_param_of(fn, ap):
    return fn.param(ap['name']) if fn is not None else None


def array_dims(cp, ap, lang):
    """Fortran dimension spec for an array parameter, or ''."""
    if cp is None or cp.array is None:
        return ''
    if len(cp.array) > 1:
        return '(' + ','.join(cp.array[1:]) + ',*)'
    return '(*)'


def f90_type(ap, cp):
    """(type spec, dimension suffix, extra attribute lines) of a `use mpi` dummy."""
    kind = ap['kind']
    if kind == 'ERROR_CODE' and cp is None:
        return 'INTEGER', '', []
    if is_choice(ap):
        return 'TYPE(*), DIMENSION(*)', '', ['NO_ARG_CHECK']
    if kind in ('C_BUFFER', 'C_BUFFER2'):
        # A base pointer: INTEGER(KIND=MPI_ADDRESS_KIND) or TYPE(C_PTR), as
        # the standard's two forms (both are 8 bytes passed by reference).
        return 'TYPE(*), DIMENSION(*)', '', ['NO_ARG_CHECK']
    if kind in ('FUNCTION', 'POLYFUNCTION'):
        return 'EXTERNAL', '', []
    if kind in ('STRING',):
        return 'CHARACTER(LEN=*)', '', []
    if kind == 'STRING_ARRAY':
        return 'CHARACTER(LEN=*)', '(*)', []
    if kind == 'STRING_2DARRAY':
        return 'CHARACTER(LEN=*)', '(COUNT,*)', []
    if kind in ADDRESS_KINDS:
        return 'INTEGER(KIND=MPI_ADDRESS_KIND)', '', []
    if kind in SMALL_VOID_KINDS:
        return 'INTEGER', '', []
    base = cp.base_type
    if base == 'MPI_Status':
        dims = '(MPI_STATUS_SIZE,*)' if cp.array is not None else '(MPI_STATUS_SIZE)'
        return 'INTEGER', dims, []
    if kind in ('LOGICAL', 'LOGICAL_OPTIONAL'):
        return 'LOGICAL', array_dims(cp, ap, 'f90'), []
    if base in HANDLE_TYPES:
        return 'INTEGER', array_dims(cp, ap, 'f90'), []
    if base in INT_KINDS:
        return INT_KINDS[base], array_dims(cp, ap, 'f90'), []
    raise KeyError(f'no Fortran 90 type for {ap["name"]} kind {kind} C type {cp.type}')


def f90_interface(api, fn, name):
    """One interface body of module mpi for the external `name`."""
    params = fortran_params(api, 'f90')
    names = [p['name'] for p in params]
    ret = api['return_kind']
    lines = []
    if ret in ('ERROR_CODE', 'NOTHING'):
        head = f'SUBROUTINE {name}({", ".join(names)})'
        tail = f'END SUBROUTINE {name}'
    else:
        rtype = INT_KINDS[fn.returns]
        head = f'{rtype} FUNCTION {name}({", ".join(names)})'
        tail = f'END FUNCTION {name}'
    lines.append(head)
    lines.append('  IMPORT')
    lines.append('  IMPLICIT NONE')
    for p in params:
        cp = c_param_of(fn, p)
        ftype, dims, attrs = f90_type(p, cp)
        if 'NO_ARG_CHECK' in attrs:
            lines.append(f'  !GCC$ ATTRIBUTES NO_ARG_CHECK :: {p["name"]}')
        if ftype == 'EXTERNAL':
            lines.append(f'  EXTERNAL :: {p["name"]}')
        else:
            lines.append(f'  {ftype} :: {p["name"]}{dims}')
    lines.append(tail)
    return lines


def wrap_f90(line, indent):
    """Free-form continuation at 100 columns."""
    out = []
    while len(line) > 100:
        cut = line.rfind(', ', 0, 96)
        if cut < 0:
            break
        out.append(line[:cut + 1] + ' &')
        line = indent + '    ' + line[cut + 2:]
    out.append(line)
    return out


HEADER = '! Generated by maint/gen_fortran_mod.py. Do not edit; see src/binding/f08/README.md.\n'

SENTINEL_DECLS = [
    'INTEGER :: MPI_BOTTOM, MPI_IN_PLACE',
    # arrays of one element: they are passed where a weights array goes
    'INTEGER :: MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)',
    'INTEGER :: MPI_STATUS_IGNORE(MPI_STATUS_SIZE)',
    'INTEGER :: MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)',
    'INTEGER :: MPI_ERRCODES_IGNORE(1)',
    'CHARACTER(LEN=1) :: MPI_ARGVS_NULL(1,1), MPI_ARGV_NULL(1)',
]

# The same COMMON blocks as include/mpif.h (and MPICH's): the C glue tells the
# sentinels by these addresses, whichever of the three interfaces passed them.
SENTINEL_COMMONS = [
    'COMMON /MPIFCMB5/ MPI_UNWEIGHTED',
    'COMMON /MPIFCMB9/ MPI_WEIGHTS_EMPTY',
    'SAVE /MPIFCMB5/',
    'SAVE /MPIFCMB9/',
    'COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE',
    'COMMON /MPIPRIV2/ MPI_STATUSES_IGNORE, MPI_ERRCODES_IGNORE',
    'SAVE /MPIPRIV1/, /MPIPRIV2/',
    'COMMON /MPIPRIVC/ MPI_ARGVS_NULL, MPI_ARGV_NULL',
    'SAVE /MPIPRIVC/',
]


def kind_order(c):
    # The KIND constants first: other declarations use them.
    return 0 if c.name.endswith('_KIND') else 1


def gen_constants(consts):
    lines = [HEADER, 'MODULE mpi_constants', 'IMPLICIT NONE', 'PUBLIC']
    for c in sorted(consts, key=kind_order):
        lines.append(f'{c.ftype}, PARAMETER :: {c.name} = {c.value}')
    lines.append('LOGICAL, PARAMETER :: MPI_SUBARRAYS_SUPPORTED = .FALSE.')
    lines.append('LOGICAL, PARAMETER :: MPI_ASYNC_PROTECTS_NONBLOCKING = .FALSE.')
    lines += SENTINEL_DECLS + SENTINEL_COMMONS
    # The predefined callbacks, as mpif.h declares them (their f77 entry points).
    import fortran_common
    for name, result in fortran_common.EXTERNALS:
        if result is None:
            lines.append(f'EXTERNAL :: {name}')
    lines.append('END MODULE mpi_constants')
    return '\n'.join(lines) + '\n'


EXTRA_F90 = '''INTERFACE
DOUBLE PRECISION FUNCTION {P}MPI_WTIME()
END FUNCTION {P}MPI_WTIME
DOUBLE PRECISION FUNCTION {P}MPI_WTICK()
END FUNCTION {P}MPI_WTICK
SUBROUTINE {P}MPI_F_SYNC_REG(buf)
  !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
  TYPE(*), DIMENSION(*) :: buf
END SUBROUTINE {P}MPI_F_SYNC_REG
END INTERFACE
'''


def gen_interfaces(pairs):
    lines = [HEADER, 'MODULE mpi_interfaces', 'USE mpi_constants', 'IMPLICIT NONE']
    for prefix in ('', 'P'):
        lines.append('INTERFACE')
        for api, fn in pairs:
            name = prefix + api['name'].upper()
            for line in f90_interface(api, fn, name):
                lines += wrap_f90(line, '  ')
        lines.append('END INTERFACE')
        lines.append(EXTRA_F90.replace('{P}', prefix))
    lines.append('END MODULE mpi_interfaces')
    return '\n'.join(lines) + '\n'


SIZEOF_TYPES = [('ch', 'CHARACTER(LEN=*)'), ('l', 'LOGICAL'),
                ('i1', 'INTEGER(KIND=1)'), ('i2', 'INTEGER(KIND=2)'),
                ('i4', 'INTEGER(KIND=4)'), ('i8', 'INTEGER(KIND=8)'),
                ('r4', 'REAL(KIND=4)'), ('r8', 'REAL(KIND=8)'), ('r16', 'REAL(KIND=16)'),
                ('c4', 'COMPLEX(KIND=4)'), ('c8', 'COMPLEX(KIND=8)'),
                ('c16', 'COMPLEX(KIND=16)')]


def sizeof_parts(namer, optional_ierror):
    """MPI_Sizeof (and PMPI_Sizeof) as module procedures over every intrinsic
    type and kind, any rank (assumed-rank dummies): (declarations, procedures).
    namer(pmpi, short type name) names a specific."""
    decls, procs = [], []
    for pmpi in (False, True):
        p = 'P' if pmpi else ''
        decls.append(f'PUBLIC :: {p}MPI_Sizeof')
        decls.append(f'INTERFACE {p}MPI_Sizeof')
        decls += [f'  MODULE PROCEDURE {namer(pmpi, t)}' for t, _ in SIZEOF_TYPES]
        decls.append('END INTERFACE')
        for t, decl in SIZEOF_TYPES:
            n = namer(pmpi, t)
            procs.append(f'SUBROUTINE {n}(x, size, ierror)')
            procs.append(f'  {decl}, DIMENSION(..) :: x')
            procs.append('  INTEGER, INTENT(OUT) :: size')
            opt = ', OPTIONAL' if optional_ierror else ''
            procs.append(f'  INTEGER{opt}, INTENT(OUT) :: ierror')
            procs.append('  size = INT(STORAGE_SIZE(x) / 8)')
            if opt:
                procs.append('  IF (PRESENT(ierror)) ierror = 0')
            else:
                procs.append('  ierror = 0')
            procs.append(f'END SUBROUTINE {n}')
    return decls, procs


def sizeof_module(module, prefix, uses):
    decls, procs = sizeof_parts(lambda pmpi, t: f'{prefix}{"p" if pmpi else ""}sizeof_{t}',
                                'f08' in module)
    return ([f'MODULE {module}'] + [f'USE {u}' for u in uses] + ['IMPLICIT NONE', 'PRIVATE']
            + decls + ['CONTAINS'] + procs + [f'END MODULE {module}'])


# MPICH's specific names of MPI_Sizeof in its `mpi` module (mpi_sizeofs), with
# the size each answers, so that a program built with mpifort.mpich finds them;
# x itself is never read, only its kind (and a CHARACTER's hidden length).
MPICH_F90_SIZEOFS = [('ch', None), ('cx', 8), ('d', 8), ('i', 4), ('i1', 1), ('i2', 2),
                     ('i8', 8), ('l', 4), ('r', 4)]


def mpich_sizeofs():
    decls, procs = [], []
    for t, size in MPICH_F90_SIZEOFS:
        for v in ('', 'v'):
            n = f'mpi_sizeof_{t}{v}'
            decls.append(f'PUBLIC :: {n}')
            dims = '(*)' if v else ''
            xdecl = 'CHARACTER(LEN=*)' if size is None else 'INTEGER'
            procs += [f'SUBROUTINE {n}(x, size, ierror)', f'  {xdecl} :: x{dims}',
                      '  INTEGER, INTENT(OUT) :: size, ierror',
                      f'  size = {"LEN(x)" if size is None else size}', '  ierror = 0',
                      f'END SUBROUTINE {n}']
    return decls, procs


def gen_mpi_module():
    lines = [HEADER]
    module = sizeof_module('mpi_sizeofs', 'stmpi_', [])
    decls, procs = mpich_sizeofs()
    at = module.index('CONTAINS')
    module = module[:at] + decls + ['CONTAINS'] + procs + module[at + 1:]
    lines += module
    lines += ['MODULE mpi', 'USE mpi_constants', 'USE mpi_interfaces', 'USE mpi_sizeofs',
              'IMPLICIT NONE', 'PUBLIC', 'END MODULE mpi']
    return '\n'.join(lines) + '\n'


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    old = None
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    if old != text:
        with open(path, 'w') as f:
            f.write(text)


def outputs(apis_path):
    apis = load_apis(apis_path)
    spec = load_spec()
    consts = constant_table()
    pairs = expressible(apis, spec, 'f90')
    out = {}
    base = 'src/binding/fortran/mod/gen/'
    out[base + 'mpi_constants.f90'] = gen_constants(consts)
    out[base + 'mpi_interfaces.f90'] = gen_interfaces(pairs)
    out[base + 'mpi.f90'] = gen_mpi_module()
    for lang in ('f90', 'f08'):
        for name in missing_in_c(apis, spec, lang):
            print(f'gen_fortran_mod: {name} ({lang}) is not in maint/api.spec')
    print(f'gen_fortran_mod: mpi: {len(pairs)} interfaces (and their PMPI_ forms)')
    import gen_fortran_f08
    out.update(gen_fortran_f08.outputs(apis, spec, consts))
    return out


def main(argv):
    apis_path = DEFAULT_APIS
    out_dir = ROOT
    args = list(argv[1:])
    while args:
        a = args.pop(0)
        if a == '--apis':
            apis_path = args.pop(0)
        elif a == '--out':
            out_dir = args.pop(0)
        elif a == '--missing':
            apis = load_apis(apis_path)
            spec = load_spec()
            for lang in ('f90', 'f08'):
                print(lang, 'not in C:', ' '.join(missing_in_c(apis, spec, lang)))
            return 0
        else:
            raise SystemExit(__doc__)
    for rel, text in outputs(apis_path).items():
        write(os.path.join(out_dir, rel), text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
