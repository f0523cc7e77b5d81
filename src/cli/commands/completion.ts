/**
 * `toolwire completion bash|zsh|fish`: a completion script built from the commands themselves, so it stays
 * in step with them. Targets complete to the server names of the configuration files
 * (`toolwire completion --servers` lists them at completion time).
 */
import type { Command } from 'commander'
import { configuredNames } from '../client/config.js'
import { UsageError } from '../client/target.js'

interface Spec {
  readonly name: string
  readonly description: string
  readonly options: string[]
}

function specs(program: Command): Spec[] {
  return program.commands.map((command) => ({
    name: command.name(),
    description: command.description().split('\n')[0] ?? '',
    options: command.options.flatMap((option) => [option.short, option.long]).filter((f): f is string => !!f),
  }))
}

function bash(all: Spec[]): string {
  const cases = all.map((spec) => `    ${spec.name}) opts="${spec.options.join(' ')}" ;;`).join('\n')
  return `# toolwire completion for bash: eval "$(toolwire completion bash)"
_toolwire() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${all.map((s) => s.name).join(' ')}" -- "$cur"))
    return
  fi
  local opts=""
  case "\${COMP_WORDS[1]}" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(toolwire completion --servers 2>/dev/null)" -- "$cur"))
  fi
}
complete -o default -F _toolwire toolwire
`
}

const quote = (text: string): string => text.replaceAll("'", "'\\''")

function zsh(all: Spec[]): string {
  const commands = all
    .map((spec) => `    '${spec.name}:${quote(spec.description).replaceAll(':', '\\:')}'`)
    .join('\n')
  const cases = all.map((spec) => `    ${spec.name}) opts=(${spec.options.join(' ')}) ;;`).join('\n')
  return `#compdef toolwire
# toolwire completion for zsh: eval "$(toolwire completion zsh)" (after compinit)
_toolwire() {
  local -a commands opts servers
  commands=(
${commands}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  case "\${words[2]}" in
${cases}
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    compadd -a opts
  else
    servers=(\${(f)"$(toolwire completion --servers 2>/dev/null)"})
    compadd -a servers
    _files
  fi
}
compdef _toolwire toolwire
`
}

function fish(all: Spec[]): string {
  const lines = [
    '# toolwire completion for fish: toolwire completion fish | source',
    'complete -c toolwire -f',
  ]
  for (const spec of all) {
    lines.push(
      `complete -c toolwire -n '__fish_use_subcommand' -a ${spec.name} -d '${quote(spec.description)}'`,
    )
    for (const option of spec.options) {
      const flag = option.startsWith('--') ? `-l ${option.slice(2)}` : `-s ${option.slice(1)}`
      lines.push(`complete -c toolwire -n '__fish_seen_subcommand_from ${spec.name}' ${flag}`)
    }
  }
  lines.push(
    `complete -c toolwire -n 'not __fish_use_subcommand' -a '(toolwire completion --servers 2>/dev/null)'`,
  )
  return `${lines.join('\n')}\n`
}

const SHELLS = { bash, zsh, fish } as const

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: bash, zsh or fish')
    .argument('[shell]', 'bash, zsh or fish')
    .option('--servers', 'print the configured server names, one per line (used by the scripts)')
    .action((shell: string | undefined, flags: { servers?: boolean }) => {
      if (flags.servers) {
        for (const name of configuredNames()) console.log(name)
        return
      }
      const generate = shell === undefined ? undefined : SHELLS[shell as keyof typeof SHELLS]
      if (!generate) throw new UsageError(`give a shell: ${Object.keys(SHELLS).join(', ')}`)
      process.stdout.write(generate(specs(program)))
    })
}
