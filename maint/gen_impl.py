"""The mpi layer's side of the generated bindings (used by maint/gen_bindings.py).

One declaration header per chapter, src/mpi/<folder>/impl_<chapter>.h,
declares the hand-written stmpi::impl functions that chapter's wrappers
call. MPI functions that share one implementation (MPI_Send and
MPI_Send_c both run blocking_send) are listed in maint/forward.spec:

    operation NAME(EXTRA_PARAM, ...) from=MODEL [include=HEADER]
      FUNCTION... [: VALUE, ...]

The operation takes the parameters of MODEL (normally the MPI_Count form,
`_c`), then the extra parameters; each FUNCTION's wrapper calls it with its
own arguments of the same names, then the VALUEs (C++ expressions in the
wrapper: constants, or arguments such as `request`). A FUNCTION written
`MPI_Send[_c]` stands for MPI_Send and MPI_Send_c. Arguments of a FUNCTION
that the operation does not take (a persistent collective's `info`) are
ignored. Where the MPI_Count form has arrays or pointers of MPI_Count or
MPI_Aint and the int form of int (the v and w collectives, MPI_Pack's
position), the operation is a template over the element type, `Count` and
`Disp` (`UserFunction` for MPI_Op_create's callback); its implementation
file defines it and instantiates it for both forms. Header lines of an
operation's extra parameter types are given by `include=`.
"""

import re

# Chapters whose declarations share a folder's header: the collective
# chapters are one header (an operation serves the blocking, nonblocking
# and persistent forms); the others have the folder that implements them.
HEADER_OF = {
    'env': ('init', 'env'),
    'comm_group': ('comm', 'comm_group'),
    'coll_nb': ('coll', 'coll'),
    'coll_init': ('coll', 'coll'),
}


def header_path(chapter):
    folder, name = HEADER_OF.get(chapter, (chapter, chapter))
    return f'src/mpi/{folder}/impl_{name}.h'


class Operation:
    def __init__(self, name, extras, model, include):
        self.name = name
        self.extras = extras          # C++ parameter declarations
        self.model = model            # the spec Function whose parameters it takes
        self.include = include        # header of the extra parameters' types, or None
        self.calls = {}               # MPI function name -> list of extra values
        self.forms = []               # the FUNCTION words, as written

    @property
    def chapter(self):
        return self.model.chapter


def split_args(text):
    """`a, f(b, c), d` -> ['a', 'f(b, c)', 'd']."""
    items, depth, current = [], 0, ''
    for ch in text:
        if ch == ',' and depth == 0:
            items.append(current.strip())
            current = ''
            continue
        depth += ch in '(<'
        depth -= ch in ')>'
        current += ch
    if current.strip():
        items.append(current.strip())
    return items


def read_forward(path, functions):
    """The operations of `path`, keyed by the MPI functions they serve."""
    by_name = {f.name: f for f in functions}
    operations, forwarded = [], {}
    with open(path) as spec:
        for lineno, raw in enumerate(spec, 1):
            line = raw.split('#', 1)[0].rstrip()
            if not line.strip():
                continue
            where = f'{path}:{lineno}'
            m = re.fullmatch(r'operation (\w+)\((.*)\)((?: \w+=\S+)*)', line)
            if m:
                fields = dict(w.split('=', 1) for w in m.group(3).split())
                if fields.get('from') not in by_name:
                    raise SystemExit(f'{where}: from= names no function of the spec')
                operations.append(Operation(m.group(1), split_args(m.group(2)),
                                            by_name[fields['from']], fields.get('include')))
                continue
            if not line.startswith(' ') or not operations:
                raise SystemExit(f'{where}: cannot parse: {line.strip()}')
            names, _, values = line.strip().partition(':')
            op = operations[-1]
            for word in names.split():
                op.forms.append(word)
                for name in ([word[:-4], word[:-4] + '_c'] if word.endswith('[_c]') else [word]):
                    if name not in by_name:
                        raise SystemExit(f'{where}: {name} is not in the spec')
                    if name in forwarded:
                        raise SystemExit(f'{where}: {name} is forwarded twice')
                    op.calls[name] = split_args(values)
                    forwarded[name] = op
    for op in operations:
        if len(op.calls[next(iter(op.calls))]) != len(op.extras) or \
                any(len(v) != len(op.extras) for v in op.calls.values()):
            raise SystemExit(f'{path}: {op.name}: each function needs one value per extra '
                             'parameter')
    return forwarded


# The template parameter standing for a type that differs between the forms.
TEMPLATE_NAMES = {'MPI_Count': 'Count', 'MPI_Aint': 'Disp', 'MPI_User_function_c': 'UserFunction'}


def template_params(op, by_name):
    """{parameter name: template parameter} for the arrays and pointers whose
    element type differs between the int form and the MPI_Count form of
    op's model, where op serves both."""
    int_form = by_name.get(op.model.name.removesuffix('_c'))
    if int_form is None or int_form is op.model or int_form.name not in op.calls:
        return {}
    result = {}
    for p in op.model.params:
        q = int_form.param(p.name)
        if not p.is_value and q is not None and q.base_type != p.base_type:
            if p.base_type not in TEMPLATE_NAMES:
                raise SystemExit(f'{op.name}: no template parameter for {p.base_type}')
            result[p.name] = TEMPLATE_NAMES[p.base_type]
    return result


def operation_params(op, by_name, impl_params):
    templated = template_params(op, by_name)
    params = []
    for p, decl in zip(op.model.params, impl_params(op.model)):
        if p.name in templated:
            decl = (('const ' if p.const else '') + templated[p.name] + '*' * p.stars + ' ' +
                    p.name + p.array_suffix())
        params.append(decl)
    order = [t for t in TEMPLATE_NAMES.values() if t in templated.values()]
    return order, params + op.extras


def forward_call(f, op, impl_args):
    """The call of op for wrapper f, and f's parameters it leaves unused."""
    args = dict(zip((p.name for p in f.params), impl_args(f)))
    missing = [p.name for p in op.model.params if p.name not in args]
    if missing:
        raise SystemExit(f'{f.name} has no {", ".join(missing)} for {op.name}')
    values = op.calls[f.name]
    call_args = [args[p.name] for p in op.model.params] + values
    taken = {p.name for p in op.model.params}
    words = set(re.findall(r'\w+', ' '.join(values)))
    unused = {p.name for p in f.params if p.name not in taken and p.name not in words}
    return call_args, unused


def forms_comment(op):
    return '// ' + ', '.join(op.forms)


def gen_impl_headers(functions, forwarded, impl_params, wrap, chapter_titles):
    """{path: text} of the chapter headers."""
    by_name = {f.name: f for f in functions}
    groups = {}
    for f in functions:
        groups.setdefault(header_path(f.chapter), []).append(f)
    files = {}
    for path, members in groups.items():
        body, includes, declared = [], set(), set()
        chapter = None
        for f in members:
            if f.unsupported:
                continue
            if f.chapter != chapter:
                chapter = f.chapter
                body += ['', f'// {chapter_titles.get(chapter, chapter)}']
            op = forwarded.get(f.name)
            if op is None:
                head = ('[[nodiscard]] ' if f.returns == 'int' else '') + \
                    f'{f.returns} {f.impl_name}'
                body.extend(wrap(head, impl_params(f), ';'))
                continue
            if op.name in declared:
                continue
            declared.add(op.name)
            if op.include:
                includes.add(op.include)
            order, params = operation_params(op, by_name, impl_params)
            body.append(forms_comment(op))
            if order:
                body.append('template <' + ', '.join(f'class {t}' for t in order) + '>')
            body.extend(wrap(f'[[nodiscard]] {op.model.returns} {op.name}', params, ';'))
        files[path] = header_text(path, members, body, includes)
    return files


def header_text(path, members, body, includes):
    chapters = []
    for f in members:
        if f.chapter not in chapters:
            chapters.append(f.chapter)
    spec = 'maint/mpix.spec' if chapters == ['mpix'] else 'maint/api.spec'
    lines = [
        '// The hand-written implementations behind the generated wrappers of',
        '// src/binding/gen/bindings_' +
        (chapters[0] if len(chapters) == 1 else '{' + ','.join(chapters) + '}') + '.cc.',
        f'// Generated by maint/gen_bindings.py from {spec} and maint/forward.spec;',
        '// do not edit.',
        '//',
        '// stmpi::impl::<name> implements MPI_<Name> (MPIX_<Name>: mpix_<name>),',
        '// unless maint/forward.spec gives the function a shared operation, which',
        '// is declared where its first function would be. Parameters are those of',
        '// the C function, except that input communicators, datatypes, groups,',
        '// operations and windows arrive as the objects the wrapper has looked up',
        '// and checked (a pointer, nullptr where not significant, or a reference).',
        '// Errors are returned as MPI error codes; the wrapper raises them.',
        '#pragma once',
        '',
        '#include <mpi.h>',
    ]
    if includes:
        lines.append('')
        lines += [f'#include "{h}"' for h in sorted(includes)]
    lines += ['',
                   'namespace stmpi::mpi {',
                   'struct Comm;',
                   'struct Datatype;',
                   'struct Group;',
                   'struct Op;',
                   'struct Win;',
                   '}  // namespace stmpi::mpi',
                   '']
    if any(p.kind == 'FILE' for f in members for p in f.params):
        lines += ['namespace stmpi::mpi::io {',
                  'class File;',
                  '}  // namespace stmpi::mpi::io',
                  '']
    lines += ['namespace stmpi::impl {']
    return '\n'.join(lines + body + ['', '}  // namespace stmpi::impl']) + '\n'
