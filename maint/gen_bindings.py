#!/usr/bin/env python3
"""Generates the C bindings from maint/api.spec.

    maint/gen_bindings.py [--spec maint/api.spec] [--out TOP]

Writes, under TOP (default: the source tree):
  include/mpi_proto.h, pmpi_proto.h    MPI_ and PMPI_ prototypes
  src/binding/gen/impl.h               declarations of stmpi::impl::<name>
  src/binding/gen/bindings_<chapter>.cc one wrapper per function

The output depends only on the spec, so running it twice gives the same
files; `make check-bindings` regenerates and compares. See
src/binding/README.md for what the wrappers check.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

HANDLE_OBJECTS = {
    'COMMUNICATOR': ('Comm', 'comm'),
    'DATATYPE': ('Datatype', 'datatype'),
    'GROUP': ('Group', 'group'),
    'OPERATION': ('Op', 'op'),
    'WINDOW': ('Win', 'win'),
}

# Handles whose object's error handler reports the call's errors: they are
# looked up before every other argument.
ERROR_HANDLE_KINDS = ('COMMUNICATOR', 'WINDOW')

# One-sided calls whose origin buffer, count and datatype are ignored when
# the operation is MPI_NO_OP (MPI 4.1 section 12.3.4).
NO_OP_ORIGIN = {'MPI_Get_accumulate', 'MPI_Rget_accumulate'}

# Scalar counts that must not be negative.
NNI_COUNT_KINDS = {'POLYXFER_NUM_ELEM_NNI', 'POLYDTYPE_NUM_ELEM_NNI', 'POLYNUM_BYTES_NNI',
                   'ARRAY_LENGTH_NNI', 'XFER_NUM_ELEM_NNI'}
# Counts of elements that go with a buffer and a datatype.
ELEMENT_COUNT_KINDS = {'POLYXFER_NUM_ELEM_NNI', 'POLYDTYPE_NUM_ELEM_NNI', 'POLYDTYPE_NUM_ELEM'}
# Arguments that may legally be NULL (MPI_Init's argc/argv) or are data.
NO_POINTER_CHECK_KINDS = {'ARGUMENT_COUNT', 'ARGUMENT_LIST', 'STRING_ARRAY', 'STRING_2DARRAY',
                          'BUFFER', 'FUNCTION',
                          'POLYFUNCTION', 'EXTRA_STATE'}

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
    'topo': 'Process topologies and neighborhood collectives',
    'session': 'Sessions',
    'part': 'Partitioned communication',
    'dynamic': 'Process creation and management',
}

MAX_LINE = 100


class Param:
    def __init__(self, name, fields):
        self.name = name
        self.kind = fields['kind']
        self.direction = fields['dir']
        self.type = fields['type']
        self.array = fields['array'].split(',') if 'array' in fields else None
        self.const = 'const' in fields
        self.root_only = 'root_only' in fields

    @property
    def stars(self):
        return len(self.type) - len(self.type.rstrip('*'))

    @property
    def base_type(self):
        return self.type.rstrip('*')

    @property
    def is_value(self):
        """Passed by value: neither pointer nor array."""
        return self.stars == 0 and self.array is None

    def c_decl(self):
        """C spelling for the public header: `const void *buf`."""
        if self.is_status_array():
            # Same type as `MPI_Status name[]`, but compilers then do not warn
            # when the argument is the MPI_STATUSES_IGNORE sentinel.
            return ('const ' if self.const else '') + self.base_type + ' *' + self.name
        text = ('const ' if self.const else '') + self.base_type + ' ' + '*' * self.stars + self.name
        return text + self.array_suffix()

    def is_status_array(self):
        return self.base_type == 'MPI_Status' and self.stars == 0 and self.array is not None \
            and len(self.array) == 1

    def cxx_decl(self):
        """C++ spelling for the generated sources: `const void* buf`."""
        text = ('const ' if self.const else '') + self.base_type + '*' * self.stars + ' ' + self.name
        return text + self.array_suffix()

    def array_suffix(self):
        if self.array is None:
            return ''
        return '[]' + ''.join(f'[{d}]' for d in self.array[1:])


class Function:
    def __init__(self, name, fields, flags):
        self.name = name
        self.returns = fields['returns']
        self.chapter = fields['chapter']
        self.large_count = 'large_count' in flags
        self.before_init = 'before_init' in flags
        self.no_lock = 'no_lock' in flags
        self.params = []

    @property
    def impl_name(self):
        return self.name[len('MPI_'):].lower()

    @property
    def pmpi_name(self):
        return 'P' + self.name

    def param(self, name):
        return next((p for p in self.params if p.name == name), None)

    def has_kind(self, kind):
        return any(p.kind == kind for p in self.params)


def split_fields(words):
    fields, flags = {}, set()
    for w in words:
        if '=' in w:
            key, value = w.split('=', 1)
            fields[key] = value
        else:
            flags.add(w)
    return fields, flags


def read_spec(path):
    functions = []
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if words[0] == 'function':
                fields, flags = split_fields(words[2:])
                functions.append(Function(words[1], fields, flags))
            elif words[0] == 'param' and functions:
                fields, flags = split_fields(words[2:])
                fields.update({flag: True for flag in flags})
                functions[-1].params.append(Param(words[1], fields))
            else:
                raise SystemExit(f'{path}:{lineno}: cannot parse: {line}')
    return functions


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


def is_collective(f):
    return f.chapter in ('coll', 'coll_nb', 'coll_init')


# Outputs that may be NULL: with *pset_len == 0 only the length is asked for.
NULLABLE_OUTPUTS = {('MPI_Session_get_nth_pset', 'pset_name')}

# Arguments significant only at the local leader (MPI 4.1 section 7.6.2).
LEADER_ONLY = {
    'MPI_Intercomm_create': ('peer_comm', 'remote_leader', 'tag'),
}


def significance(f):
    """Conditions under which a collective's argument is significant, as C++
    expressions by parameter name. The standard lets a caller pass anything
    for an argument that is significant only at the root, and for the count
    and datatype that go with a buffer replaced by MPI_IN_PLACE. Only
    collectives with a send and a receive datatype have such a side: the
    buffer that is not root-only in a rooted collective (Gather's sendbuf,
    Scatter's recvbuf), else the send buffer (Allgather)."""
    conditions = {}
    if f.name in LEADER_ONLY:
        return {name: 'local_comm_obj->rank == local_leader' for name in LEADER_ONLY[f.name]}
    if f.name.removesuffix('_c') in NO_OP_ORIGIN:
        return {'origin_count': 'op != MPI_NO_OP', 'origin_datatype': 'op != MPI_NO_OP'}
    if not is_collective(f):
        return conditions
    if sum(1 for p in f.params if p.kind == 'DATATYPE' and p.is_value) < 2:
        return conditions
    root = f.param('root')
    buffers = [p for p in f.params if p.kind == 'BUFFER']
    if any(b.root_only for b in buffers):
        in_place = [b for b in buffers if not b.root_only]
    else:
        in_place = [b for b in buffers if b.direction == 'in']
    for buf_name, (count, datatype) in buffer_partners(f).items():
        buf = f.param(buf_name)
        for q in (count, datatype):
            if q is None:
                continue
            terms = []
            if q.root_only and root is not None:
                # The root: its rank, or MPI_ROOT on an intercommunicator.
                terms.append(f'(comm_obj->is_inter() ? {root.name} == MPI_ROOT '
                             f': comm_obj->rank == {root.name})')
            if buf in in_place:
                terms.append(f'{buf.name} != MPI_IN_PLACE')
            if terms:
                conditions[q.name] = ' && '.join(terms)
    return conditions


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
    """The call that checks input handle `p` and returns its object."""
    check = HANDLE_OBJECTS[p.kind][1]
    if p.kind == 'DATATYPE':
        needs_commit = 'true' if f.has_kind('BUFFER') else 'false'
        return f'call.datatype({p.name}, "{p.name}", /*needs_commit=*/{needs_commit})'
    return f'call.{check}({p.name}, "{p.name}")'


def object_decl(p):
    return f'mpi::{HANDLE_OBJECTS[p.kind][0]}* {object_var(p)}'


def scalar_checks(f, p, comm):
    """Checks of one parameter that is not an object handle or a buffer."""
    name = p.name
    if p.kind == 'SESSION' and p.direction == 'in':
        return [f'call.session({name});']  # errors go to the session's handler
    if p.direction == 'in' and p.is_value:
        if p.kind in NNI_COUNT_KINDS:
            return [f'call.count({name}, "{name}");']
        if p.kind == 'RANK' and comm is not None and rank_kind(p) is not None:
            return [f'call.rank({name}, "{name}", {object_var(comm)}, RankKind::{rank_kind(p)});']
        if p.kind == 'TAG':
            return [f'call.tag({name}, "{name}", TagKind::{tag_kind(f, p)});']
        return []
    if p.kind in NO_POINTER_CHECK_KINDS:
        return []
    if p.kind == 'ATTRIBUTE_VAL' and p.direction == 'in':
        return []  # an attribute value is any pointer-sized value, NULL included
    if p.array is not None:
        length = length_param(f, p)
        return [f'call.array({name}, {length.name}, "{name}");'] if length is not None else []
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
    # Buffers last: their check needs the datatype. Collectives leave them to
    # the implementation (MPI_IN_PLACE, root-only buffers).
    if not is_collective(f):
        for buf_name, (count, datatype) in buffer_partners(f).items():
            if count is not None and datatype is not None:
                check = f'call.buffer({buf_name}, {count.name}, {object_var(datatype)}, "{buf_name}");'
                if datatype.name in conditions:
                    check = f'if ({conditions[datatype.name]}) {check}'
                lines.append(check)
    return lines


def impl_args(f):
    conditions = significance(f)
    args = []
    for p in f.params:
        if object_param(f, p):
            args.append(object_var(p) if p.name in conditions else '*' + object_var(p))
        else:
            args.append(p.name)
    return args


def impl_params(f):
    conditions = significance(f)
    params = []
    for p in f.params:
        if object_param(f, p):
            type_name = HANDLE_OBJECTS[p.kind][0]
            sep = '* ' if p.name in conditions else '& '
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


def gen_impl_header(functions):
    out = ['// The hand-written implementations behind the generated MPI_ wrappers.',
           '// Generated by maint/gen_bindings.py from maint/api.spec; do not edit.',
           '//',
           '// stmpi::impl::<name> implements MPI_<Name>. Its parameters are those of',
           '// the C function, except that input communicators, datatypes, groups and',
           '// operations arrive as objects the wrapper has looked up and checked.',
           '// A datatype that is significant only at the root or only without',
           '// MPI_IN_PLACE arrives as a pointer, nullptr where it is not significant.',
           '// Errors are returned as MPI error codes; the wrapper raises them.',
           '#pragma once',
           '',
           '#include <mpi.h>',
           '',
           'namespace stmpi::mpi {',
           'struct Comm;',
           'struct Datatype;',
           'struct Group;',
           'struct Op;',
           'struct Win;',
           '}  // namespace stmpi::mpi',
           '',
           'namespace stmpi::impl {']
    for chapter in chapters_of(functions):
        out.append('')
        out.append(f'// {CHAPTER_TITLES.get(chapter, chapter)}')
        for f in functions:
            if f.chapter != chapter:
                continue
            head = ('[[nodiscard]] ' if f.returns == 'int' else '') + f'{f.returns} {f.impl_name}'
            out.extend(wrap(head, impl_params(f), ';'))
    out += ['', '}  // namespace stmpi::impl']
    return '\n'.join(out) + '\n'


def call_flags(f):
    flags = []
    if f.before_init:
        flags.append('Call::kBeforeInit')
    if f.no_lock:
        flags.append('Call::kNoLock')
    return ', ' + ' | '.join(flags) if flags else ''


def gen_wrapper(f):
    params = [p.cxx_decl() for p in f.params]
    out = wrap(f'extern "C" STMPI_API {f.returns} {f.pmpi_name}', params, ' {')
    out.append(f'  Call call("{f.name}"{call_flags(f)});')
    checks = wrapper_checks(f)
    out.extend('  ' + line for line in checks)
    call_impl = f'impl::{f.impl_name}'
    args = impl_args(f)
    if f.returns == 'int':
        if checks:
            out.append('  if (call.failed()) return call.result();')
        out.extend(wrap(f'  return call.finish({call_impl}', args, ');', indent='      '))
    else:
        out.extend(wrap(f'  return {call_impl}', args, ';', indent='      '))
    out.append('}')
    alias = [f'extern "C" STMPI_API decltype({f.pmpi_name}) {f.name}',
             f'__attribute__((weak, alias("{f.pmpi_name}")));']
    if len(' '.join(alias)) <= MAX_LINE:
        out.append(' '.join(alias))
    else:
        out.extend([alias[0], '    ' + alias[1]])
    return out


def gen_bindings(functions, chapter):
    out = [f'// C bindings: {CHAPTER_TITLES.get(chapter, chapter)}.',
           '// Generated by maint/gen_bindings.py from maint/api.spec; do not edit.',
           '// Each PMPI_ function checks its arguments and calls stmpi::impl; the MPI_',
           '// name is a weak alias, so a profiling library can define MPI_X and call',
           '// PMPI_X.',
           '#include <mpi.h>',
           '',
           '#include "binding/call.h"',
           '#include "binding/gen/impl.h"',
           '',
           'namespace impl = stmpi::impl;',
           'namespace mpi = stmpi::mpi;',
           'using stmpi::binding::Call;',
           'using stmpi::binding::RankKind;',
           'using stmpi::binding::TagKind;']
    for f in functions:
        if f.chapter == chapter:
            out.append('')
            out.extend(gen_wrapper(f))
    return '\n'.join(out) + '\n'


def outputs(functions):
    files = {
        'include/mpi_proto.h': gen_proto(functions, 'MPI_'),
        'include/pmpi_proto.h': gen_proto(functions, 'PMPI_'),
        'src/binding/gen/impl.h': gen_impl_header(functions),
    }
    for chapter in chapters_of(functions):
        files[f'src/binding/gen/bindings_{chapter}.cc'] = gen_bindings(functions, chapter)
    return files


def main(argv):
    parser = argparse.ArgumentParser(description='Generate the C bindings from maint/api.spec.')
    parser.add_argument('--spec', default=os.path.join(HERE, 'api.spec'))
    parser.add_argument('--out', default=TOP, help='top of the tree to write into')
    args = parser.parse_args(argv[1:])
    functions = read_spec(args.spec)
    for path, text in outputs(functions).items():
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
