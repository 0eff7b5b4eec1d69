#!/usr/bin/env python3
"""Generates the C bindings from maint/api.spec.

    maint/gen_bindings.py [--spec maint/api.spec] [--mpix-spec maint/mpix.spec] [--out TOP]

The MPIX_ extensions (maint/mpix.spec, written by hand in the same format)
get wrappers and implementation declarations like every MPI function; their
prototypes are in include/mpix.h. maint/forward.spec names the operations
that several functions share (see maint/gen_impl.py).

Writes, under TOP (default: the source tree):
  include/mpi_proto.h, pmpi_proto.h    MPI_ and PMPI_ prototypes
  src/mpi/<folder>/impl_<chapter>.h    declarations of the stmpi::impl functions
                                       and operations a chapter's wrappers call
                                       (the mpi layer's interface to the bindings)
  src/binding/gen/bindings_<chapter>.cc one wrapper per function

The output depends only on the spec, so running it twice gives the same
files; `make check-bindings` regenerates and compares. See
src/binding/README.md for what the wrappers check.
"""

import argparse
import os
import sys

from binding_spec import read_spec
from gen_impl import forward_call, gen_impl_headers, header_path, read_forward

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

HANDLE_OBJECTS = {
    'COMMUNICATOR': ('Comm', 'comm'),
    'DATATYPE': ('Datatype', 'datatype'),
    'GROUP': ('Group', 'group'),
    'OPERATION': ('Op', 'op'),
    'WINDOW': ('Win', 'win'),
    'FILE': ('io::File', 'file'),
}

# Handles whose object's error handler reports the call's errors: they are
# looked up before every other argument.
ERROR_HANDLE_KINDS = ('COMMUNICATOR', 'WINDOW', 'FILE')

# Functions whose file handle may be MPI_FILE_NULL (the default file error
# handler lives there, and MPI_File_c2f converts it): the implementation
# receives the handle, which the wrapper only checks (call.file_or_null).
FILE_OR_NULL = {'MPI_File_set_errhandler', 'MPI_File_get_errhandler',
                'MPI_File_call_errhandler'}
# MPI_File_c2f takes any value and checks nothing (it raises no error).
FILE_UNCHECKED = {'MPI_File_c2f'}

# One-sided calls whose origin buffer, count and datatype are ignored when
# the operation is MPI_NO_OP (MPI 4.1 section 12.3.4).
NO_OP_ORIGIN = {'MPI_Get_accumulate', 'MPI_Rget_accumulate'}

# One-sided atomics whose buffers each hold one element of `datatype`; the
# origin buffer of MPI_Fetch_and_op is ignored with MPI_NO_OP.
ONE_ELEMENT = {'MPI_Fetch_and_op': {'origin_addr': 'op != MPI_NO_OP'},
               'MPI_Compare_and_swap': {}}

# Buffers outside collectives that have no count and datatype to check
# against but still must not be MPI_IN_PLACE (memory the library will
# write or read later).
NOT_IN_PLACE = {'MPI_Buffer_attach': 'buffer', 'MPI_Win_create': 'base',
                'MPI_Win_attach': 'base', 'MPI_Pack': 'outbuf', 'MPI_Unpack': 'inbuf'}

# Scalar counts that must not be negative.
NNI_COUNT_KINDS = {'POLYXFER_NUM_ELEM_NNI', 'POLYDTYPE_NUM_ELEM_NNI', 'POLYNUM_BYTES_NNI',
                   'ARRAY_LENGTH_NNI', 'XFER_NUM_ELEM_NNI'}
# Counts of elements that go with a buffer and a datatype.
ELEMENT_COUNT_KINDS = {'POLYXFER_NUM_ELEM_NNI', 'POLYDTYPE_NUM_ELEM_NNI', 'POLYDTYPE_NUM_ELEM'}
# Arguments that may legally be NULL (MPI_Init's argc/argv) or are data.
NO_POINTER_CHECK_KINDS = {'ARGUMENT_COUNT', 'ARGUMENT_LIST', 'STRING_ARRAY', 'STRING_2DARRAY',
                          'BUFFER', 'FUNCTION',
                          'POLYFUNCTION', 'EXTRA_STATE', 'EXTRA_STATE2'}

# Where a collective accepts MPI_IN_PLACE (MPI 4.1, chapter 6 and section
# 8.6), by family: the function name without MPI_, without the I of the
# nonblocking form, _init of the persistent form and _c, in lower case.
#   'any'   every process may pass it (Allreduce's sendbuf)
#   'root'  only the root (Gather's and Reduce's sendbuf, Scatter's recvbuf)
# A buffer not listed here (Bcast's buffer, every recvbuf but Scatter's,
# Reduce_local's, all neighborhood buffers) must not be MPI_IN_PLACE:
# MPI_ERR_BUFFER. A new collective whose standard text allows MPI_IN_PLACE
# needs its line here; one that does not needs nothing.
IN_PLACE = {
    'gather': {'sendbuf': 'root'},
    'gatherv': {'sendbuf': 'root'},
    'scatter': {'recvbuf': 'root'},
    'scatterv': {'recvbuf': 'root'},
    'allgather': {'sendbuf': 'any'},
    'allgatherv': {'sendbuf': 'any'},
    'alltoall': {'sendbuf': 'any'},
    'alltoallv': {'sendbuf': 'any'},
    'alltoallw': {'sendbuf': 'any'},
    'reduce': {'sendbuf': 'root'},
    'allreduce': {'sendbuf': 'any'},
    'reduce_scatter': {'sendbuf': 'any'},
    'reduce_scatter_block': {'sendbuf': 'any'},
    'scan': {'sendbuf': 'any'},
    'exscan': {'sendbuf': 'any'},
}

# Collective buffers whose element count is one entry of a counts array,
# the calling process's (Reduce_scatter's recvbuf gets recvcounts[rank]);
# with every other counts array a buffer holds the data of all entries.
OWN_COUNT_ENTRY = {('reduce_scatter', 'recvbuf')}

# Collective buffers that hold one block of `count` elements per process of
# the communicator (Gather's recvbuf at the root, Alltoall's both): the
# whole buffer's byte size must fit too, not only one block's.
PER_PROCESS_BLOCKS = {('gather', 'recvbuf'), ('scatter', 'sendbuf'), ('allgather', 'recvbuf'),
                      ('alltoall', 'sendbuf'), ('alltoall', 'recvbuf'),
                      ('reduce_scatter_block', 'sendbuf')}

CHAPTER_TITLES = {
    'env': 'Environment, error handling, memory',
    'pt2pt': 'Point-to-point communication',
    'request': 'Requests, completion, status',
    'comm_group': 'Communicators and groups',
    'datatype': 'Datatypes, packing, addresses',
    'coll': 'Collective communication and reduction operations',
    'coll_nb': 'Nonblocking collective communication',
    'coll_init': 'Persistent collective communication',
    'info': 'Info objects',
    'rma': 'One-sided communication',
    'io': 'I/O (MPI-IO)',
    'topo': 'Process topologies and neighborhood collectives',
    'session': 'Sessions',
    'part': 'Partitioned communication',
    'dynamic': 'Process creation and management',
    'tools': 'The tools information interface (MPI_T)',
    'mpix': 'STMPI extensions (MPIX_, maint/mpix.spec)',
}

# Chapters whose prototypes are written by hand, next to their documentation
# (include/mpix.h): not in mpi_proto.h and pmpi_proto.h.
OWN_HEADER_CHAPTERS = {'mpix'}

# The null handle an input handle flagged null_ok may be.
NULL_HANDLES = {'WINDOW': 'MPI_WIN_NULL'}

# Chapters whose functions return their error codes as they are: the MPI_T
# functions never invoke an error handler, work before MPI_Init and after
# MPI_Finalize, and check their own arguments (MPI_T_ERR_* classes).
RAW_CHAPTERS = {'tools'}

MAX_LINE = 100


def chapters_of(functions):
    order = []
    for f in functions:
        if f.chapter not in order:
            order.append(f.chapter)
    return order


def wrap(head, items, tail, indent='    '):
    """`head(item, item)tail` on one line, or broken after commas (and after
    the parenthesis when even the first item does not fit)."""
    one_line = head + '(' + ', '.join(items) + ')' + tail
    if len(one_line) <= MAX_LINE or not items:
        return [one_line]
    lines, current = [], head + '('
    for i, item in enumerate(items):
        piece = item + (', ' if i + 1 < len(items) else ')' + tail)
        if len(current) + len(piece.rstrip()) > MAX_LINE and current.strip():
            lines.append(current.rstrip())
            current = indent
        current += piece
    lines.append(current)
    return lines


# ---------------------------------------------------------------------------
# Which checks a wrapper runs


def object_param(f, p):
    """Is `p` an input handle that the wrapper turns into an object?"""
    if p.kind == 'FILE' and (f.name in FILE_OR_NULL or f.name in FILE_UNCHECKED):
        return False
    return p.kind in HANDLE_OBJECTS and p.direction == 'in' and p.is_value


def buffer_partners(f):
    """For each BUFFER parameter, the element count and datatype that describe it:
    the first of each that follows it before the next buffer."""
    partners = {}
    for i, p in enumerate(f.params):
        if p.kind != 'BUFFER':
            continue
        count = datatype = None
        for q in f.params[i + 1:]:
            if q.kind == 'BUFFER':
                break
            if count is None and q.kind in ELEMENT_COUNT_KINDS and q.is_value:
                count = q
            if datatype is None and q.kind == 'DATATYPE' and q.is_value:
                datatype = q
        partners[p.name] = (count, datatype)
    return partners


# Blocking, nonblocking and persistent collectives have chapters of their own;
# neighborhood collectives may sit with the topologies.
COLLECTIVE_CHAPTERS = ('coll', 'coll_nb', 'coll_init')
NEIGHBOR_PREFIXES = ('MPI_Neighbor_', 'MPI_Ineighbor_')


def is_collective(f):
    """A function of the collective chapter that moves data (MPI_Reduce_local
    included: it has no communicator, but its buffers follow the same
    rules)."""
    return ((f.chapter in COLLECTIVE_CHAPTERS or f.name.startswith(NEIGHBOR_PREFIXES))
            and f.has_kind('BUFFER'))


def family(f):
    """The collective family: MPI_Iallreduce_c and MPI_Allreduce_init are
    'allreduce'."""
    name = f.name[len('MPI_'):].lower().removesuffix('_c').removesuffix('_init')
    if name.startswith('i') and f.has_kind('REQUEST'):
        name = name[1:]
    return name


def is_neighborhood(f):
    return family(f).startswith('neighbor_')


def in_place_rule(f, p):
    """'any', 'root' or None (MPI_IN_PLACE is an error) for buffer `p`."""
    return IN_PLACE.get(family(f), {}).get(p.name)


def collective_partners(f):
    """For each BUFFER of a collective, its count (scalar or array) and its
    datatype (scalar or array): the first of each after the buffer, looking
    past the following buffers when none comes before them (Reduce's sendbuf
    shares count and datatype with recvbuf)."""
    partners = {}
    for i, p in enumerate(f.params):
        if p.kind != 'BUFFER':
            continue
        count = datatype = None
        for stop_at_buffer in (True, False):
            for q in f.params[i + 1:]:
                if q.kind == 'BUFFER' and stop_at_buffer:
                    break
                if count is None and q.kind in ELEMENT_COUNT_KINDS and q.direction == 'in':
                    count = q
                if datatype is None and q.kind == 'DATATYPE' and q.direction == 'in':
                    datatype = q
            if count is not None or datatype is not None:
                break
        partners[p.name] = (count, datatype)
    return partners


# Outputs that may be NULL: with *pset_len == 0 only the length is asked for.
NULLABLE_OUTPUTS = {('MPI_Session_get_nth_pset', 'pset_name')}

# Arguments significant only at the local leader (MPI 4.1 section 7.6.2).
LEADER_ONLY = {
    'MPI_Intercomm_create': ('peer_comm', 'remote_leader', 'tag'),
}


def significance(f):
    """Conditions under which a collective's argument is significant, as C++
    expressions by parameter name. The standard lets a caller pass anything
    for an argument that is significant only at the root, and for the
    counts, displacements and datatypes that go with a buffer replaced by
    MPI_IN_PLACE. Only collectives whose buffers each have their own
    datatype have such a side (Gather, Scatter, Allgather, Alltoall and their
    v and w forms); Reduce's count and datatype serve both buffers."""
    conditions = {}
    if f.name in LEADER_ONLY:
        return {name: 'local_comm_obj->rank == local_leader' for name in LEADER_ONLY[f.name]}
    if f.name.removesuffix('_c') in NO_OP_ORIGIN:
        return {'origin_count': 'op != MPI_NO_OP', 'origin_datatype': 'op != MPI_NO_OP'}
    if not is_collective(f) or first_comm(f) is None:
        return conditions
    if sum(1 for p in f.params if p.kind == 'DATATYPE' and p.direction == 'in') < 2:
        return conditions
    root = f.param('root')
    comm = first_comm(f)
    for buf in (p for p in f.params if p.kind == 'BUFFER'):
        for q in buffer_side(f, buf):
            terms = []
            if q.root_only and root is not None:
                # The root: its rank, or MPI_ROOT on an intercommunicator.
                comm_var = object_var(comm)
                terms.append(f'({comm_var}->is_inter() ? {root.name} == MPI_ROOT '
                             f': {comm_var}->rank == {root.name})')
            if in_place_rule(f, buf) is not None:
                terms.append(f'{buf.name} != MPI_IN_PLACE')
            if terms:
                conditions[q.name] = ' && '.join(terms)
    return conditions


def buffer_side(f, buf):
    """The counts, displacements and datatype that follow buffer `buf` up to
    the next buffer or the root."""
    i = f.params.index(buf)
    side = []
    for q in f.params[i + 1:]:
        if q.kind == 'BUFFER' or q.kind == 'RANK' or q.kind == 'COMMUNICATOR':
            break
        if q.direction == 'in' and (q.kind in ELEMENT_COUNT_KINDS or q.kind == 'DATATYPE'
                                    or q.kind.startswith('POLYDISPLACEMENT')):
            side.append(q)
    return side


def first_comm(f):
    return next((p for p in f.params if p.kind == 'COMMUNICATOR' and object_param(f, p)), None)


def tag_kind(f, p):
    if p.name == 'sendtag':
        return 'kSend'
    if p.name == 'recvtag':
        return 'kRecv'
    return 'kRecv' if f.param('source') is not None else 'kSend'


def rank_kind(p):
    return {'dest': 'kDest', 'source': 'kSource', 'root': 'kRoot'}.get(p.name)


def length_param(f, p):
    """The scalar parameter holding the length of array `p`, if any."""
    if p.array is None:
        return None
    q = f.param(p.array[0])
    return q if q is not None and q.is_value else None


def object_var(p):
    return p.name + '_obj'


def object_lookup(f, p):
    """The call that checks input handle `p` and returns its object (nullptr
    for the null handle of a handle flagged null_ok)."""
    check = HANDLE_OBJECTS[p.kind][1]
    if p.kind == 'DATATYPE':
        needs_commit = 'true' if f.has_kind('BUFFER') else 'false'
        return f'call.datatype({p.name}, "{p.name}", /*needs_commit=*/{needs_commit})'
    if p.null_ok:
        return f'{p.name} == {NULL_HANDLES[p.kind]} ? nullptr : call.{check}({p.name}, "{p.name}")'
    return f'call.{check}({p.name}, "{p.name}")'


def object_by_pointer(f, p, conditions):
    """Does the implementation receive input handle `p`'s object as a pointer
    (nullptr where it is not significant, or for a null_ok null handle)?"""
    return p.name in conditions or p.null_ok


def object_decl(p):
    return f'mpi::{HANDLE_OBJECTS[p.kind][0]}* {object_var(p)}'


def scalar_checks(f, p, comm):
    """Checks of one parameter that is not an object handle or a buffer."""
    name = p.name
    if p.kind == 'SESSION' and p.direction == 'in':
        return [f'call.session({name});']  # errors go to the session's handler
    if p.direction == 'in' and p.is_value:
        if p.kind == 'FILE' and f.name in FILE_OR_NULL:
            return [f'call.file_or_null({name}, "{name}");']
        if p.kind in NNI_COUNT_KINDS:
            return [f'call.count({name}, "{name}");']
        if p.kind == 'RANK' and comm is not None and rank_kind(p) is not None:
            return [f'call.rank({name}, "{name}", {object_var(comm)}, RankKind::{rank_kind(p)});']
        if p.kind == 'TAG':
            return [f'call.tag({name}, "{name}", TagKind::{tag_kind(f, p)});']
        return []
    if p.kind in NO_POINTER_CHECK_KINDS or p.nullable:
        return []
    if p.kind == 'STREAM' and p.direction == 'in':
        return []  # a stream handle: the implementation checks it (NULL may be valid)
    if p.kind in ('ATTRIBUTE_VAL', 'ATTRIBUTE_VAL_10') and p.direction == 'in':
        return []  # an attribute value is any pointer-sized value, NULL included
    if p.array is not None:
        length = length_param(f, p)
        if length is not None:
            return [f'call.array({name}, {length.name}, "{name}");']
        return collective_array_checks(f, p, comm)
    if (f.name, name) in NULLABLE_OUTPUTS:
        return []
    if p.kind == 'STATUS':
        # An output status may be MPI_STATUS_IGNORE; a status that is read may not.
        if p.direction == 'out':
            return [f'call.not_null({name}, "{name}");']
        return [f'call.status({name}, "{name}");']
    if p.kind == 'REQUEST' and p.direction != 'out':
        return [f'call.request({name}, "{name}");']
    if p.kind in HANDLE_OBJECTS and p.direction == 'inout':
        return [f'call.{HANDLE_OBJECTS[p.kind][1]}_inout({name}, "{name}");']
    return [f'call.not_null({name}, "{name}");']


def collective_array_checks(f, p, comm):
    """An array of a collective with one entry per process of the
    communicator: counts (not NULL, none negative), displacements (not
    NULL), datatypes (each valid and committed). On an intercommunicator the
    entries are the remote group's (peer_size()), except Reduce_scatter's
    recvcounts, which describe the local group. Neighborhood collectives
    have one entry per neighbor: the implementation checks those."""
    if not is_collective(f) or comm is None or is_neighborhood(f) or p.direction != 'in':
        return []
    method = 'counts' if p.kind in ELEMENT_COUNT_KINDS else \
        'datatypes' if p.kind == 'DATATYPE' else 'per_process_array'
    entries = f'{object_var(comm)}->size' if family(f) == 'reduce_scatter' \
        else f'{object_var(comm)}->peer_size()'
    return [f'call.{method}({p.name}, {entries}, "{p.name}");']


def collective_buffer_checks(f, conditions):
    """MPI_IN_PLACE where the standard does not allow it, and a NULL buffer
    with data to move, for each buffer of a collective (MPI_ERR_BUFFER).
    A buffer significant only at the root is checked only there; the NULL
    check needs the buffer's count and datatype and runs where they are
    significant."""
    lines = []
    comm = first_comm(f)
    root = f.param('root')
    partners = collective_partners(f)
    for buf in (p for p in f.params if p.kind == 'BUFFER'):
        name = buf.name
        checks = []
        rule = in_place_rule(f, buf)
        if rule is None:
            checks.append(f'call.not_in_place({name}, "{name}");')
        elif rule == 'root' and root is not None and comm is not None:
            checks.append(f'call.in_place_at_root({name}, "{name}", {object_var(comm)}, '
                          f'{root.name});')
        count, datatype = partners[name]
        null_check = None
        if count is not None and datatype is not None:
            type_obj = object_var(datatype) if datatype.is_value else 'nullptr'
            types = 'nullptr' if datatype.is_value else datatype.name
            if count.is_value and comm is not None and (family(f), name) in PER_PROCESS_BLOCKS:
                null_check = (f'call.buffer_blocks({name}, {count.name}, {object_var(comm)}, '
                              f'{type_obj}, "{name}");')
            elif count.is_value:
                null_check = f'call.buffer({name}, {count.name}, {type_obj}, "{name}");'
            elif comm is not None and (family(f), name) in OWN_COUNT_ENTRY:
                null_check = (f'call.buffer_own_count({name}, {count.name}, {object_var(comm)}, '
                              f'{type_obj}, "{name}");')
            elif comm is not None and not is_neighborhood(f):
                null_check = (f'call.buffer_counts({name}, {count.name}, {object_var(comm)}, '
                              f'{type_obj}, {types}, "{name}");')
        root_block = buf.root_only and root is not None and comm is not None
        # The root: its rank, or MPI_ROOT on an intercommunicator.
        at_root = (f'({object_var(comm)}->is_inter() ? {root.name} == MPI_ROOT '
                   f': {object_var(comm)}->rank == {root.name})') if root_block else None
        # In a rooted collective with a root-only buffer (Reduce, Gather(v), Scatter(v)),
        # the other buffer belongs to the non-root processes: on an intercommunicator
        # the root group's processes (MPI_ROOT, MPI_PROC_NULL) do not use it.
        leaf_block = (not buf.root_only and root is not None and comm is not None and
                      any(p.kind == 'BUFFER' and p.root_only for p in f.params))
        at_leaf = (f'!({object_var(comm)}->is_inter() && ({root.name} == MPI_ROOT || '
                   f'{root.name} == MPI_PROC_NULL))') if leaf_block else None
        if null_check is not None:
            terms = []
            for q in (count, datatype):
                for term in conditions.get(q.name, '').split(' && '):
                    if term and term != at_root and term not in terms:
                        terms.append(term)
            if not terms:
                checks.append(null_check)
            elif len(f'  if ({" && ".join(terms)}) {null_check}') <= MAX_LINE:
                checks.append(f'if ({" && ".join(terms)}) {null_check}')
            else:
                checks.extend([f'if ({" && ".join(terms)}) {{', '  ' + null_check, '}'])
        if not checks:
            continue
        if root_block or leaf_block:
            lines.append(f'if (!call.failed() && {at_root or at_leaf}) {{')
            lines.extend('  ' + c for c in checks)
            lines.append('}')
        else:
            lines.extend(checks)
    return lines


def conditional(condition, checks):
    """`checks`, run only when `condition` (a C++ expression) holds."""
    if not condition:
        return checks
    return [f'if ({condition}) {{'] + ['  ' + c for c in checks] + ['}']


def wrapper_checks(f):
    lines = []
    comm = first_comm(f)
    conditions = significance(f)
    # Communicators and windows first: the first one's error handler reports
    # everything else.
    for p in f.params:
        if p.kind in ERROR_HANDLE_KINDS and object_param(f, p):
            value = 'nullptr' if p.name in conditions else object_lookup(f, p)
            lines.append(f'{object_decl(p)} = {value};')
    for p in f.params:
        if p.kind in HANDLE_OBJECTS and p.kind not in ERROR_HANDLE_KINDS and object_param(f, p):
            value = 'nullptr' if p.name in conditions else object_lookup(f, p)
            lines.append(f'{object_decl(p)} = {value};')
    for p in f.params:
        if p.name in conditions or object_param(f, p) or p.kind == 'BUFFER':
            continue
        lines.extend(scalar_checks(f, p, comm))
    # Arguments significant only sometimes: checked once the root is known good.
    grouped = {}
    for p in f.params:
        if p.name in conditions:
            grouped.setdefault(conditions[p.name], []).append(p)
    for condition, params in grouped.items():
        lines.append(f'if (!call.failed() && {condition}) {{')
        for p in params:
            if object_param(f, p):
                lines.append(f'  {object_var(p)} = {object_lookup(f, p)};')
            else:
                lines.extend('  ' + line for line in scalar_checks(f, p, comm))
        lines.append('}')
    # Buffers last: their check needs the datatype.
    if is_collective(f):
        lines.extend(collective_buffer_checks(f, conditions))
    # Elsewhere MPI_IN_PLACE is never a buffer (it is not an address).
    elif f.name in ONE_ELEMENT:
        datatype = next(p for p in f.params if p.kind == 'DATATYPE')
        for buf in (p for p in f.params if p.kind == 'BUFFER'):
            checks = [f'call.not_in_place({buf.name}, "{buf.name}");',
                      f'call.buffer({buf.name}, 1, {object_var(datatype)}, "{buf.name}");']
            lines.extend(conditional(ONE_ELEMENT[f.name].get(buf.name), checks))
    else:
        base = f.name.removesuffix('_c')
        if base in NOT_IN_PLACE:
            lines.append(f'call.not_in_place({NOT_IN_PLACE[base]}, "{NOT_IN_PLACE[base]}");')
        for buf_name, (count, datatype) in buffer_partners(f).items():
            if count is not None and datatype is not None:
                checks = [f'call.not_in_place({buf_name}, "{buf_name}");',
                          f'call.buffer({buf_name}, {count.name}, {object_var(datatype)}, '
                          f'"{buf_name}");']
                lines.extend(conditional(conditions.get(datatype.name), checks))
    return lines


def impl_args(f):
    conditions = significance(f)
    args = []
    for p in f.params:
        if object_param(f, p):
            args.append(object_var(p) if object_by_pointer(f, p, conditions)
                        else '*' + object_var(p))
        else:
            args.append(p.name)
    return args


def impl_params(f):
    conditions = significance(f)
    params = []
    for p in f.params:
        if object_param(f, p):
            type_name = HANDLE_OBJECTS[p.kind][0]
            sep = '* ' if object_by_pointer(f, p, conditions) else '& '
            params.append(f'mpi::{type_name}{sep}{p.name}')
        else:
            params.append(p.cxx_decl())
    return params


# ---------------------------------------------------------------------------
# Output files


def c_prototype(f, name):
    params = [p.c_decl() for p in f.params] or ['void']
    return wrap(f'{f.returns} {name}', params, ';')


def gen_proto(functions, prefix):
    """mpi_proto.h (MPI_ names) or pmpi_proto.h (PMPI_ names)."""
    base = prefix.lower() + 'proto.h'
    guard = 'STMPI_' + prefix + 'PROTO_H'
    title = 'MPI interface' if prefix == 'MPI_' else 'Profiling interface'
    out = [f'/* {base} - prototypes of the {prefix} functions STMPI provides ({title}).',
           ' * Generated by maint/gen_bindings.py from maint/api.spec; do not edit.',
           ' * Included by mpi.h. The types match MPICH 4.x prototypes exactly (ABI). */',
           f'#ifndef {guard}',
           f'#define {guard}',
           '',
           '#ifdef __cplusplus',
           'extern "C" {',
           '#endif']
    for chapter in chapters_of(functions):
        if chapter in OWN_HEADER_CHAPTERS:
            continue
        out.append('')
        out.append(f'/* {CHAPTER_TITLES.get(chapter, chapter)} */')
        for f in functions:
            if f.chapter == chapter:
                name = f.name if prefix == 'MPI_' else f.pmpi_name
                out.extend(c_prototype(f, name))
    out += ['',
            '#ifdef __cplusplus',
            '}',
            '#endif',
            '',
            f'#endif /* {guard} */']
    return '\n'.join(out) + '\n'


def call_flags(f):
    flags = []
    if f.before_init:
        flags.append('Call::kBeforeInit')
    if f.no_lock:
        flags.append('Call::kNoLock')
    if f.returns_outside_init:
        flags.append('Call::kReturnOutsideInit')
    return ', ' + ' | '.join(flags) if flags else ''


def call_lines(f):
    """The wrapper's `Call call(...)`, its flags on a line of their own when
    the whole does not fit."""
    line = f'  Call call("{f.name}"{call_flags(f)});'
    if len(line) <= MAX_LINE:
        return [line]
    return [f'  Call call("{f.name}",', f'            {call_flags(f)[2:]});']


def gen_raw_wrapper(f):
    params = [p.cxx_decl() for p in f.params]
    out = wrap(f'extern "C" STMPI_API {f.returns} {f.pmpi_name}', params, ' {')
    out.extend(call_lines(f))
    out.extend(wrap(f'  return impl::{f.impl_name}', impl_args(f), ';', indent='      '))
    out.append('}')
    return out


def gen_wrapper(f, forwarded):
    if f.chapter in RAW_CHAPTERS:
        return gen_raw_wrapper(f) + alias_lines(f)
    call_impl = f'impl::{f.impl_name}'
    args = impl_args(f)
    unused = set()
    if f.name in forwarded:
        call_impl = f'impl::{forwarded[f.name].name}'
        args, unused = forward_call(f, forwarded[f.name], impl_args)
    params = [('[[maybe_unused]] ' if p.name in unused else '') + p.cxx_decl() for p in f.params]
    checks = wrapper_checks(f)
    if f.unsupported:
        # Nothing but the checks uses the arguments and the looked-up objects.
        params = ['[[maybe_unused]] ' + p for p in params]
        checks = ['[[maybe_unused]] ' + c if c.startswith('mpi::') else c for c in checks]
    out = wrap(f'extern "C" STMPI_API {f.returns} {f.pmpi_name}', params, ' {')
    out.extend(call_lines(f))
    out.extend('  ' + line for line in checks)
    if f.unsupported:
        assert f.returns == 'int', f.name
        if checks:
            out.append('  if (call.failed()) return call.result();')
        out.append('  return call.unsupported();')
    elif f.returns == 'int':
        if checks:
            out.append('  if (call.failed()) return call.result();')
        out.extend(wrap(f'  return call.finish({call_impl}', args, ');', indent='      '))
    else:
        out.extend(wrap(f'  return {call_impl}', args, ';', indent='      '))
    out.append('}')
    return out + alias_lines(f)


def alias_lines(f):
    alias = [f'extern "C" STMPI_API decltype({f.pmpi_name}) {f.name}',
             f'__attribute__((weak, alias("{f.pmpi_name}")));']
    if len(' '.join(alias)) <= MAX_LINE:
        return [' '.join(alias)]
    return [alias[0], '    ' + alias[1]]


def gen_bindings(functions, chapter, forwarded):
    spec = 'maint/mpix.spec' if chapter == 'mpix' else 'maint/api.spec'
    out = [f'// C bindings: {CHAPTER_TITLES.get(chapter, chapter)}.',
           f'// Generated by maint/gen_bindings.py from {spec}; do not edit.',
           '// Each PMPI_ function checks its arguments and calls stmpi::impl; the MPI_',
           '// name is a weak alias, so a profiling library can define MPI_X and call',
           '// PMPI_X.',
           '#include <mpi.h>',
           '',
           '#include "binding/call.h"',
           f'#include "{header_path(chapter).removeprefix("src/")}"',
           '',
           'namespace impl = stmpi::impl;',
           'namespace mpi = stmpi::mpi;']
    values = ' '.join(' '.join(forwarded[f.name].calls[f.name]) for f in functions
                      if f.chapter == chapter and f.name in forwarded)
    if 'dev::' in values:
        out.append('namespace dev = stmpi::dev;')
    out += ['using stmpi::binding::Call;',
            'using stmpi::binding::RankKind;',
            'using stmpi::binding::TagKind;']
    for f in functions:
        if f.chapter == chapter:
            out.append('')
            out.extend(gen_wrapper(f, forwarded))
    return '\n'.join(out) + '\n'


def outputs(functions, forwarded):
    files = {
        'include/mpi_proto.h': gen_proto(functions, 'MPI_'),
        'include/pmpi_proto.h': gen_proto(functions, 'PMPI_'),
    }
    files.update(gen_impl_headers(functions, forwarded, impl_params, wrap, CHAPTER_TITLES))
    for chapter in chapters_of(functions):
        files[f'src/binding/gen/bindings_{chapter}.cc'] = gen_bindings(functions, chapter,
                                                                       forwarded)
    return files


def main(argv):
    parser = argparse.ArgumentParser(description='Generate the C bindings from maint/api.spec.')
    parser.add_argument('--spec', default=os.path.join(HERE, 'api.spec'))
    parser.add_argument('--mpix-spec', default=os.path.join(HERE, 'mpix.spec'),
                        help='the extensions (MPIX_), read after --spec')
    parser.add_argument('--forward-spec', default=os.path.join(HERE, 'forward.spec'),
                        help='the operations that several functions share')
    parser.add_argument('--out', default=TOP, help='top of the tree to write into')
    args = parser.parse_args(argv[1:])
    functions = read_spec(args.spec) + read_spec(args.mpix_spec)
    forwarded = read_forward(args.forward_spec, functions)
    for path, text in outputs(functions, forwarded).items():
        full = os.path.join(args.out, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        # Leave unchanged files alone so that make does not rebuild them.
        try:
            with open(full) as f:
                if f.read() == text:
                    continue
        except FileNotFoundError:
            pass
        with open(full, 'w') as f:
            f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
