// Reads the official SDKs' own type definitions to list every `type` a union declares: each
// member's `type` (or any other discriminant) string literal. The gateway shape corpora use it
// so a new SDK version that adds an item, block or stream event type fails their test until the
// type is mapped or listed as refused.

import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import ts from 'typescript'

const ROOT = dirname(new URL('../../package.json', import.meta.url).pathname)
const programs = new Map<string, { program: ts.Program; file: ts.SourceFile }>()

/** A type alias of an SDK module, by the module's import specifier and the alias's name. */
export interface SdkUnion {
  /** As imported: `openai/resources/responses/responses`. */
  module: string
  /** The exported type, dotted for a namespace member: `ResponseInputItem`, `Beta.BetaContentBlock`. */
  type: string
  /** The discriminating property (default `type`). */
  discriminant?: string
  /** Read the union from this property of the type instead (a oneof: `content` of A2A's `Part`). */
  member?: string
}

function programFor(module: string): { program: ts.Program; checker: ts.TypeChecker; file: ts.SourceFile } {
  let entry = programs.get(module)
  if (!entry) {
    const source = `import type * as M from '${module}'\nexport type Probe = typeof M\n`
    const fileName = `${ROOT}/__sdk_probe_${programs.size}.ts`
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    }
    const host = ts.createCompilerHost(options)
    const readFile = host.readFile.bind(host)
    const fileExists = host.fileExists.bind(host)
    host.readFile = (name) => (name === fileName ? source : readFile(name))
    host.fileExists = (name) => name === fileName || fileExists(name)
    const program = ts.createProgram([fileName], options, host)
    const file = program.getSourceFile(fileName)
    if (!file) throw new Error(`cannot load a probe for ${module}`)
    entry = { program, file }
    programs.set(module, entry)
  }
  return { ...entry, checker: entry.program.getTypeChecker() }
}

/** The resolved module symbol's export `path` (dotted through namespaces). */
function exportedType(checker: ts.TypeChecker, file: ts.SourceFile, union: SdkUnion): ts.Type {
  const statement = file.statements[0]
  if (!statement || !ts.isImportDeclaration(statement)) throw new Error('probe has no import')
  const moduleSymbol = checker.getSymbolAtLocation(statement.moduleSpecifier)
  if (!moduleSymbol) {
    require.resolve(union.module)
    throw new Error(`cannot resolve the types of ${union.module}`)
  }
  let scope: ts.Symbol = moduleSymbol
  const parts = union.type.split('.')
  for (const [index, part] of parts.entries()) {
    const exports = checker.getExportsOfModule(scope)
    const found = exports.find((s) => s.name === part)
    if (!found) throw new Error(`${union.module} exports no ${parts.slice(0, index + 1).join('.')}`)
    scope = found.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(found) : found
  }
  return checker.getDeclaredTypeOfSymbol(scope)
}

const require = createRequire(import.meta.url)

/** Every string literal the union's members declare for their discriminant, sorted. */
export function sdkTypeLiterals(union: SdkUnion): string[] {
  const { checker, file } = programFor(union.module)
  let type = exportedType(checker, file, union)
  if (union.member !== undefined) {
    const property = checker.getPropertyOfType(type, union.member)
    if (!property) throw new Error(`${union.module} ${union.type} has no property ${union.member}`)
    type = checker.getNonNullableType(checker.getTypeOfSymbol(property))
  }
  const members = type.isUnion() ? type.types : [type]
  const found = new Set<string>()
  for (const member of members) {
    const property = checker.getPropertyOfType(member, union.discriminant ?? 'type')
    if (!property) continue
    const propertyType = checker.getTypeOfSymbol(property)
    const values = propertyType.isUnion() ? propertyType.types : [propertyType]
    for (const value of values) if (value.isStringLiteral()) found.add(value.value)
  }
  if (found.size === 0)
    throw new Error(`${union.module} ${union.type} declares no ${union.discriminant ?? 'type'} literals`)
  return [...found].sort()
}
