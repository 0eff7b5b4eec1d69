#!/usr/bin/env python3
"""Writes maint/api.spec from the MPI Forum's API data and maint/functions.txt,
and maint/fortran_api.spec (the facts the Fortran generators use) from the
API data.

    maint/make_spec.py /path/to/mpi-standard/apis.json [functions.txt]
                       [api.spec [fortran_api.spec]]

fortran_api.spec goes next to api.spec unless named.

apis.json is the machine-readable MPI 4.1 API that the MPI Forum publishes.
Users do not need it: the specs it produces are checked in, and
maint/gen_bindings.py and the Fortran generators read only the specs. Only
facts are taken over (names, parameter kinds, C types, directions,
array/pointer shape, constness); the prose is not.

Spec format (one function per block, '#' starts a comment):

    function MPI_Send_c returns=int chapter=pt2pt large_count
      param buf kind=BUFFER dir=in type=void* const
      param count kind=POLYXFER_NUM_ELEM_NNI dir=in type=MPI_Count
      param ranges kind=RANK dir=in type=int array=n,3

`type` is the complete C type of the parameter except for array brackets;
`array=LEN[,DIM]` makes it `name[]` (or `name[][DIM]`), LEN naming the
parameter that holds the length or `*` when the length is implied.
`root_only` marks a parameter that is significant only at the root.
Function flags: large_count (the `_c` variant), before_init, no_lock and
unsupported (copied from functions.txt).
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fortran_common  # noqa: E402

# C type of each parameter kind: (type in MPI_X, type in MPI_X_c).
KIND_TYPES = {
    # Counts and sizes that grow to MPI_Count in the large-count variant.
    'POLYXFER_NUM_ELEM_NNI': ('int', 'MPI_Count'),
    'POLYXFER_NUM_ELEM': ('int', 'MPI_Count'),
    'POLYDTYPE_NUM_ELEM_NNI': ('int', 'MPI_Count'),
    'POLYDTYPE_NUM_ELEM': ('int', 'MPI_Count'),
    'POLYDISPLACEMENT_COUNT': ('int', 'MPI_Count'),
    'POLYNUM_BYTES_NNI': ('int', 'MPI_Count'),
    'POLYNUM_BYTES': ('int', 'MPI_Count'),
    'POLYDTYPE_STRIDE_BYTES': ('MPI_Aint', 'MPI_Count'),
    'POLYDISPLACEMENT_AINT_COUNT': ('MPI_Aint', 'MPI_Count'),
    'POLYRMA_DISPLACEMENT': ('int', 'MPI_Aint'),
    'POLYDISPLACEMENT': ('int', 'MPI_Aint'),
    # Fixed-width counts, addresses and displacements.
    'XFER_NUM_ELEM': ('MPI_Count', 'MPI_Count'),
    'XFER_NUM_ELEM_SMALL': ('int', 'int'),
    'NUM_BYTES': ('MPI_Count', 'MPI_Count'),
    'DISPLACEMENT': ('MPI_Aint', 'MPI_Aint'),
    'LOCATION_SMALL': ('MPI_Aint', 'MPI_Aint'),
    'ALLOC_MEM_NUM_BYTES': ('MPI_Aint', 'MPI_Aint'),
    'WINDOW_SIZE': ('MPI_Aint', 'MPI_Aint'),
    'WIN_ATTACH_SIZE': ('MPI_Aint', 'MPI_Aint'),
    'RMA_DISPLACEMENT_NNI': ('MPI_Aint', 'MPI_Aint'),
    # Plain integers.
    'ARRAY_LENGTH': ('int', 'int'),
    'ARRAY_LENGTH_NNI': ('int', 'int'),
    'ARGUMENT_COUNT': ('int', 'int'),
    'COLOR': ('int', 'int'),
    'KEY': ('int', 'int'),
    'KEYVAL': ('int', 'int'),
    'RANK': ('int', 'int'),
    'RANK_NNI': ('int', 'int'),
    'LOCK_TYPE': ('int', 'int'),
    'ASSERT': ('int', 'int'),
    'KEY_INDEX': ('int', 'int'),
    'INFO_VALUE_LENGTH': ('int', 'int'),
    'TAG': ('int', 'int'),
    'INDEX': ('int', 'int'),
    'LOGICAL': ('int', 'int'),
    'VERSION': ('int', 'int'),
    'STRING_LENGTH': ('int', 'int'),
    'ERROR_CODE': ('int', 'int'),
    'ERROR_CLASS': ('int', 'int'),
    'THREAD_LEVEL': ('int', 'int'),
    'COMM_COMPARISON': ('int', 'int'),
    'GROUP_COMPARISON': ('int', 'int'),
    'COMM_SIZE': ('int', 'int'),
    'ARRAY_LENGTH_PI': ('int', 'int'),
    'COORDINATE': ('int', 'int'),
    'DEGREE': ('int', 'int'),
    'DIMENSION': ('int', 'int'),
    'NUM_DIMS': ('int', 'int'),
    'WEIGHT': ('int', 'int'),
    'TOPOLOGY_TYPE': ('int', 'int'),
    'SPLIT_TYPE': ('int', 'int'),
    'PARTITION': ('int', 'int'),
    'FILE_DESCRIPTOR': ('int', 'int'),
    'XFER_NUM_ELEM_NNI': ('MPI_Count', 'MPI_Count'),
    'POLYDISPLACEMENT': ('int', 'MPI_Aint'),
    # Handles.
    'COMMUNICATOR': ('MPI_Comm', 'MPI_Comm'),
    'GROUP': ('MPI_Group', 'MPI_Group'),
    'DATATYPE': ('MPI_Datatype', 'MPI_Datatype'),
    'OPERATION': ('MPI_Op', 'MPI_Op'),
    'REQUEST': ('MPI_Request', 'MPI_Request'),
    'MESSAGE': ('MPI_Message', 'MPI_Message'),
    'ERRHANDLER': ('MPI_Errhandler', 'MPI_Errhandler'),
    'INFO': ('MPI_Info', 'MPI_Info'),
    'WINDOW': ('MPI_Win', 'MPI_Win'),
    'SESSION': ('MPI_Session', 'MPI_Session'),
    'FILE': ('MPI_File', 'MPI_File'),
    'F90_FILE': ('MPI_Fint', 'MPI_Fint'),
    'F90_STATUS': ('MPI_Fint', 'MPI_Fint'),
    'F08_STATUS': ('MPI_F08_status', 'MPI_F08_status'),
    'OFFSET': ('MPI_Offset', 'MPI_Offset'),
    'POLYDISPOFFSET': ('MPI_Aint', 'MPI_Count'),
    'ACCESS_MODE': ('int', 'int'),
    'UPDATE_MODE': ('int', 'int'),
    'POLYNUM_PARAM_VALUES': ('int', 'MPI_Count'),
    'POLYDTYPE_NUM_ELEM_PI': ('int', 'MPI_Count'),
    'ARRAY_LENGTH_PI': ('int', 'int'),
    'GENERIC_DTYPE_INT': ('int', 'int'),
    'GENERIC_DTYPE_COUNT': ('MPI_Count', 'MPI_Count'),
    'COMBINER': ('int', 'int'),
    'ORDER': ('int', 'int'),
    'COMM_SIZE_PI': ('int', 'int'),
    'DISTRIB_ENUM': ('int', 'int'),
    'DTYPE_DISTRIBUTION': ('int', 'int'),
    'PROCESS_GRID_SIZE': ('int', 'int'),
    'POLYDTYPE_PACK_SIZE': ('MPI_Aint', 'MPI_Count'),
    'POLYLOCATION': ('MPI_Aint', 'MPI_Count'),
    'TYPECLASS': ('int', 'int'),
    'TYPECLASS_SIZE': ('int', 'int'),
    'MATH': ('int', 'int'),
    'STATUS': ('MPI_Status', 'MPI_Status'),
    # Pointers by nature.
    'BUFFER': ('void*', 'void*'),
    'C_BUFFER': ('void*', 'void*'),
    'C_BUFFER2': ('void*', 'void*'),
    'EXTRA_STATE': ('void*', 'void*'),
    'ATTRIBUTE_VAL': ('void*', 'void*'),
    'ATTRIBUTE_VAL_10': ('void*', 'void*'),  # the MPI-1 calls (MPI_Attr_put/get)
    'EXTRA_STATE2': ('void*', 'void*'),
    'STRING': ('char*', 'char*'),
    'STRING_ARRAY': ('char**', 'char**'),
    'STRING_2DARRAY': ('char**', 'char**'),
    'ARGUMENT_LIST': ('char**', 'char**'),
    # The tools interface (MPI_T): indices, enumerations and opaque handles.
    'UPDATE_NUMBER': ('int', 'int'),
    'CAT_INDEX': ('int', 'int'),
    'CVAR_INDEX': ('int', 'int'),
    'CVAR_INDEX_SPECIAL': ('int', 'int'),
    'PVAR_INDEX': ('int', 'int'),
    'EVENT_INDEX': ('int', 'int'),
    'SOURCE_INDEX': ('int', 'int'),
    'TOOL_VAR_VERBOSITY': ('int', 'int'),
    'TOOL_VAR_VALUE': ('int', 'int'),
    'TOOLENUM_SIZE': ('int', 'int'),
    'TOOLENUM_INDEX': ('int', 'int'),
    'TOOLS_NUM_ELEM_SMALL': ('int', 'int'),
    'BIND_TYPE': ('int', 'int'),
    'VARIABLE_SCOPE': ('int', 'int'),
    'PVAR_CLASS': ('int', 'int'),
    'LOGICAL_OPTIONAL': ('int', 'int'),
    'DISPLACEMENT_NNI': ('MPI_Aint', 'MPI_Aint'),
    'TOOLS_TICK_COUNT': ('MPI_Count', 'MPI_Count'),
    'TOOL_MPI_OBJ': ('void*', 'void*'),
    'TOOLS_ENUM': ('MPI_T_enum', 'MPI_T_enum'),
    'CVAR': ('MPI_T_cvar_handle', 'MPI_T_cvar_handle'),
    'PVAR': ('MPI_T_pvar_handle', 'MPI_T_pvar_handle'),
    'PVAR_SESSION': ('MPI_T_pvar_session', 'MPI_T_pvar_session'),
    'EVENT_REGISTRATION': ('MPI_T_event_registration', 'MPI_T_event_registration'),
    'EVENT_INSTANCE': ('MPI_T_event_instance', 'MPI_T_event_instance'),
    'CALLBACK_SAFETY': ('MPI_T_cb_safety', 'MPI_T_cb_safety'),
    'SOURCE_ORDERING': ('MPI_T_source_order', 'MPI_T_source_order'),
    'EVENT_CB_FUNCTION': ('MPI_T_event_cb_function*', 'MPI_T_event_cb_function*'),
    'EVENT_FREE_CB_FUNCTION': ('MPI_T_event_free_cb_function*', 'MPI_T_event_free_cb_function*'),
    'EVENT_DROP_CB_FUNCTION': ('MPI_T_event_dropped_cb_function*',
                               'MPI_T_event_dropped_cb_function*'),
    # Callbacks: the type is the parameter's func_type (see param_type).
    'FUNCTION': (None, None),
    'POLYFUNCTION': (None, None),
}

RETURN_TYPES = {
    'ERROR_CODE': 'int',
    'ERROR_CLASS': 'int',
    'WALL_TIME': 'double',
    'TICK_RESOLUTION': 'double',
    'LOCATION_SMALL': 'MPI_Aint',
    'DISPLACEMENT': 'MPI_Aint',
    'F90_FILE': 'MPI_Fint',
    'FILE': 'MPI_File',
}

# Status arguments are always passed by address, even as inputs.
ALWAYS_POINTER = {'STATUS', 'F90_STATUS', 'F08_STATUS'}

# Kinds whose C type already is the address of the data (buffers, strings,
# callbacks): an output of such a kind gets no extra level of indirection.
ADDRESS_KINDS = {'BUFFER', 'C_BUFFER', 'C_BUFFER2', 'EXTRA_STATE', 'EXTRA_STATE2',
                 'ATTRIBUTE_VAL', 'ATTRIBUTE_VAL_10',
                 'STRING', 'FUNCTION', 'POLYFUNCTION'}

FUNCTION_FLAGS = {'before_init', 'no_lock', 'unsupported'}


class SpecError(Exception):
    pass


def read_function_list(path):
    """Returns [(name, chapter, flags)] in file order."""
    entries = []
    chapter = None
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            if line.startswith('[') and line.endswith(']'):
                chapter = line[1:-1].strip()
                continue
            words = line.split()
            name, flags = words[0], words[1:]
            if chapter is None:
                raise SpecError(f'{path}:{lineno}: {name} is outside any [chapter]')
            unknown = set(flags) - FUNCTION_FLAGS
            if unknown:
                raise SpecError(f'{path}:{lineno}: unknown flags {sorted(unknown)}')
            entries.append((name, chapter, flags))
    return entries


def has_large_variant(function):
    return any(p['kind'].startswith('POLY') or p['large_only'] for p in function['parameters'])


def param_type(p, large):
    kind = p['kind']
    if kind not in KIND_TYPES:
        raise SpecError(f'no C type known for parameter kind {kind}')
    if kind in ('FUNCTION', 'POLYFUNCTION'):
        base = p['func_type']
        if kind == 'POLYFUNCTION' and large:
            base += '_c'
        return base + '*'
    return KIND_TYPES[kind][1 if large else 0]


# Parameters that MPICH's prototypes declare without the const the standard
# has; the ABI is MPICH's.
MPICH_NOT_CONST = {('MPI_Pready_list', 'array_of_partitions')}

# The API data marks MPI_Scatterv_init's recvbuf root-only; it is
# significant everywhere (as in MPI_Scatterv and MPI_Iscatterv).
NOT_ROOT_ONLY = {('MPI_Scatterv_init', 'recvbuf')}


# MPI_Info_create_env takes argc and argv by value in C (MPI 4.1 and MPICH:
# int argc, char *argv[]); the API data marks them inout like MPI_Init's.
BY_VALUE = {('MPI_Info_create_env', 'argc'): 'int', ('MPI_Info_create_env', 'argv'): 'char*'}


def param_entry(p, large, function_name=''):
    """The spec line of one C parameter."""
    kind = p['kind']
    ctype = param_type(p, large)
    direction = p['param_direction']
    if (function_name, p['name']) in BY_VALUE:
        ctype = BY_VALUE[(function_name, p['name'])]
        direction = 'in'
    length = p['length']
    # A parameter with a length is an array, unless the data asks for a
    # pointer (argv) or it is a string (always `char *`).
    is_array = length is not None and p['pointer'] is not True and kind != 'STRING'
    fields = ['param', p['name'], f'kind={kind}', f'dir={direction}']
    if not is_array:
        by_address = direction in ('out', 'inout') or p['pointer'] is True or kind in ALWAYS_POINTER
        if by_address and kind not in ADDRESS_KINDS:
            ctype += '*'
    fields.append(f'type={ctype}')
    if is_array:
        dims = length if isinstance(length, list) else [length]
        fields.append('array=' + ','.join(str(d) for d in dims))
    if p['constant'] and (function_name, p['name']) not in MPICH_NOT_CONST:
        fields.append('const')
    if p['root_only'] and (function_name, p['name']) not in NOT_ROOT_ONLY:
        fields.append('root_only')
    return ' '.join(fields)


def function_block(function, name, chapter, flags, large):
    ret = function['return_kind']
    if ret not in RETURN_TYPES:
        raise SpecError(f'{name}: no C type known for return kind {ret}')
    header = ['function', name, f'returns={RETURN_TYPES[ret]}', f'chapter={chapter}']
    if large:
        header.append('large_count')
    header.extend(flags)
    lines = [' '.join(header)]
    for p in function['parameters']:
        if 'c_parameter' in p['suppress'].split():
            continue
        if p['large_only'] and not large:
            continue
        lines.append('  ' + param_entry(p, large, name.removesuffix('_c')))
    return '\n'.join(lines)


def _param(name, kind, direction):
    return {'name': name, 'kind': kind, 'param_direction': direction, 'length': None,
            'pointer': None, 'constant': False, 'root_only': False, 'large_only': False,
            'suppress': '', 'func_type': ''}


# Functions of MPI 4.1 that the API data at hand (MPI 4.0) lacks, in its
# format: the buffer flushes, and the large-count MPI_Status_set_elements_c
# (4.0 has no large form of MPI_Status_set_elements). Used only when the data
# does not have them.
MPI41_ADDITIONS = [
    {'name': 'MPI_Buffer_flush', 'return_kind': 'ERROR_CODE', 'parameters': []},
    {'name': 'MPI_Buffer_iflush', 'return_kind': 'ERROR_CODE',
     'parameters': [_param('request', 'REQUEST', 'out')]},
    {'name': 'MPI_Status_set_elements_c', 'return_kind': 'ERROR_CODE',
     'parameters': [_param('status', 'STATUS', 'inout'), _param('datatype', 'DATATYPE', 'in'),
                    _param('count', 'XFER_NUM_ELEM', 'in')]},
]


def make_spec(apis_path, list_path):
    with open(apis_path) as f:
        apis = json.load(f)
    by_name = {entry['name']: entry for entry in apis.values()}
    for entry in MPI41_ADDITIONS:
        by_name.setdefault(entry['name'], entry)
    blocks = []
    missing = []
    for name, chapter, flags in read_function_list(list_path):
        large = name.endswith('_c') and name not in by_name
        base = name[:-2] if large else name
        function = by_name.get(base)
        if function is None:
            missing.append(name)
            continue
        if large and not has_large_variant(function):
            raise SpecError(f'{name}: {base} has no large-count variant in the standard')
        blocks.append(function_block(function, name, chapter, flags, large))
    text = ('# Generated by maint/make_spec.py from the MPI Forum API data and\n'
            '# maint/functions.txt. Do not edit; see src/binding/README.md.\n\n'
            + '\n\n'.join(blocks) + '\n')
    return text, missing


def main(argv):
    if len(argv) < 2 or len(argv) > 5:
        sys.stderr.write(__doc__)
        return 2
    apis_path = argv[1]
    list_path = argv[2] if len(argv) > 2 else os.path.join(HERE, 'functions.txt')
    spec_path = argv[3] if len(argv) > 3 else os.path.join(HERE, 'api.spec')
    fortran_path = argv[4] if len(argv) > 4 else \
        os.path.join(os.path.dirname(spec_path), 'fortran_api.spec')
    try:
        text, missing = make_spec(apis_path, list_path)
    except SpecError as e:
        sys.stderr.write(f'make_spec.py: {e}\n')
        return 1
    for name in missing:
        sys.stderr.write(f'make_spec.py: warning: {name} is not in the API data; skipped\n')
    with open(spec_path, 'w') as f:
        f.write(text)
    with open(apis_path) as f:
        fortran_text = fortran_common.write_fortran_api_spec(json.load(f))
    with open(fortran_path, 'w') as f:
        f.write(fortran_text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
