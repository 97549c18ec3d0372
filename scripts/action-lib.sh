# Helpers the GitHub Action's scripts share (sourced by action-install.sh, action-verify.sh and
# action-attest.sh). What the Action writes where the runner reads it is written here:
#   - log lines on stderr, one line each, with CR, LF and other control characters escaped, behind
#     a fixed prefix: nothing an input, a file name or a note holds can start a line of the log,
#     so none can be read as a workflow command (::error::, ::add-mask::, ::stop-commands::);
#   - workflow commands, with their message and properties escaped as the runner decodes them;
#   - step outputs, in the runner's NAME<<DELIMITER form with a random delimiter;
#   - output of git and taskproof that is not meant as workflow commands, between
#     ::stop-commands:: and its random resume token.
# Nothing is ever written to $GITHUB_ENV or $GITHUB_PATH. Works with bash 3.2 (macOS).

# random_token prints 32 hex digits from /dev/urandom.
random_token() {
  od -An -N16 -tx1 /dev/urandom | tr -d ' \n'
}

# plain_text prints $1 on one line: CR and LF as \r and \n, other control characters as '?'.
plain_text() {
  local s=$1
  s=${s//$'\r'/\\r}
  s=${s//$'\n'/\\n}
  s=${s//[[:cntrl:]]/?}
  printf '%s' "$s"
}

log() {
  printf 'taskproof-action: %s\n' "$(plain_text "$*")" >&2
}

# gh_escape_data escapes a workflow command's message as the runner decodes it (% CR LF); other
# control characters become '?'.
gh_escape_data() {
  local s=$1
  s=${s//%/%25}
  s=${s//$'\r'/%0D}
  s=${s//$'\n'/%0A}
  s=${s//[[:cntrl:]]/?}
  printf '%s' "$s"
}

# gh_escape_property escapes a workflow command's property value (also : and ,).
gh_escape_property() {
  local s
  s=$(gh_escape_data "$1")
  s=${s//:/%3A}
  s=${s//,/%2C}
  printf '%s' "$s"
}

# gh_annotate LEVEL TITLE MESSAGE writes an ::error, ::warning or ::notice workflow command (on
# stdout, where the runner reads commands; outside a stop_commands region).
gh_annotate() {
  case $1 in error|warning|notice) ;; *) log "gh_annotate: unknown level $1"; return 1 ;; esac
  printf '::%s title=%s::%s\n' "$1" "$(gh_escape_property "$2")" "$(gh_escape_data "$3")"
}

# fail CODE MESSAGE: an ::error annotation, then exit CODE.
fail() {
  gh_annotate error "taskproof action" "$2"
  log "$2"
  exit "$1"
}

# set_output NAME VALUE appends a step output to $GITHUB_OUTPUT (when the runner gives one) in
# the NAME<<DELIMITER form, whatever VALUE holds: the delimiter is random and checked absent.
set_output() {
  local name=$1 value=$2 delim
  case $name in
    ''|*[!A-Za-z0-9_-]*) log "set_output: bad output name"; return 1 ;;
  esac
  [ -n "${GITHUB_OUTPUT:-}" ] || return 0
  delim=ghadelimiter_$(random_token)
  case $value in
    *"$delim"*) log "set_output: output $name holds its own delimiter"; return 1 ;;
  esac
  printf '%s<<%s\n%s\n%s\n' "$name" "$delim" "$value" "$delim" >> "$GITHUB_OUTPUT"
}

# summary appends Markdown to $GITHUB_STEP_SUMMARY when the runner gives one; a summary that
# cannot be written is a log line, never a failure.
summary() {
  [ -n "${GITHUB_STEP_SUMMARY:-}" ] || return 0
  printf '%s\n' "$1" >> "$GITHUB_STEP_SUMMARY" 2>/dev/null || log "cannot write \$GITHUB_STEP_SUMMARY"
}

# md_code prints $1 as a Markdown code span (one line, no back quotes inside).
md_code() {
  local s
  s=$(plain_text "$1")
  s=${s//\`/\'}
  printf '`%s`' "$s"
}

# quiet CMD…: runs CMD with its stdout and stderr (one stream, in order) between
# ::stop-commands:: and a random resume token, so that nothing it prints is run as a workflow
# command; returns CMD's exit code.
quiet() {
  local token code
  token=$(random_token)
  printf '::stop-commands::%s\n' "$token"
  code=0
  "$@" 2>&1 || code=$?
  printf '::%s::\n' "$token"
  return "$code"
}

# split_words TEXT sets the array WORDS to TEXT split at blanks (spaces, tabs, newlines): each word
# is taken literally — no quotes, backslashes, globs, ~, $ or braces are interpreted, and no
# pathname expansion happens (read splits; nothing is expanded).
split_words() {
  local text=$1
  text=${text//$'\n'/ }
  text=${text//$'\r'/ }
  WORDS=()
  read -r -a WORDS <<< "$text" || true
}

# allow_flags INPUT ALLOWED WORD… exits 2 unless every word of the free-form input INPUT is a flag
# that ALLOWED names, or the value of the one before it. ALLOWED is space-separated: NAME for a
# boolean flag (--NAME, --NAME=true, --NAME=false), NAME= for a flag that takes a value (--NAME V,
# --NAME=V). Everything else is refused, naming the word: a flag that decides trust or the outcome,
# or that the Action sets itself, has an input of its own (or none), and a flag that a later
# taskproof adds is refused until it is judged harmless here. Short flags, `--` and words that are
# no flag's value are refused too: they would become arguments taskproof reads as revisions.
allow_flags() {
  local input=$1 allowed=" $2 " w name value_next=false a
  ALLOWED_HELP=
  for a in $2; do ALLOWED_HELP="${ALLOWED_HELP:+$ALLOWED_HELP, }--${a%=}"; done
  shift 2
  for w in "$@"; do
    if $value_next; then
      value_next=false
      continue
    fi
    case $w in
      --) fail 2 "$input: '--' is not accepted there: the Action gives the revisions itself" ;;
      --*=*)
        name=${w#--}
        name=${name%%=*}
        case $allowed in
          *" $name= "*) ;;
          *" $name "*)
            case ${w#*=} in true|false) ;; *) fail 2 "$input: --$name takes no value (or true or false), not '${w#*=}'" ;; esac ;;
          *) refused_flag "$input" "$name" ;;
        esac
        ;;
      --*)
        name=${w#--}
        case $allowed in
          *" $name= "*) value_next=true ;;
          *" $name "*) ;;
          *) refused_flag "$input" "$name" ;;
        esac
        ;;
      -?*) fail 2 "$input: short flag $w is not accepted there: give flags by their long names" ;;
      *) fail 2 "$input: '$w' is not a flag or a flag's value: the Action gives taskproof's arguments itself" ;;
    esac
  done
  if $value_next; then
    fail 2 "$input: the last flag needs a value"
  fi
}

# refused_flag INPUT NAME exits 2 for a flag allow_flags does not accept.
refused_flag() {
  fail 2 "$1: --$2 is not accepted there: what decides trust or the outcome, and what the Action sets itself, has an input of its own or none (accepted in $1: ${ALLOWED_HELP:-no flag}); see docs/ci.md"
}

# csv_quote prints $1 as one CSV field: taskproof's repeatable --key and --keyring flags split
# their value at commas, so a path is passed quoted.
csv_quote() {
  printf '"%s"' "${1//\"/\"\"}"
}

# lines_of TEXT sets the array LINES to TEXT's non-blank lines, trimmed.
lines_of() {
  local line
  LINES=()
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    line=${line#"${line%%[![:space:]]*}"}
    line=${line%"${line##*[![:space:]]}"}
    [ -n "$line" ] && LINES+=("$line")
  done <<< "$1"
  return 0
}

# deepen_checkout makes a shallow checkout (actions/checkout's default, fetch-depth: 1) whole:
# the gate needs the range's history and the parents of its commits.
deepen_checkout() {
  if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    log "the checkout is shallow (actions/checkout's default fetch-depth: 1): fetching the history from $1"
    quiet git fetch --no-tags --unshallow "$1" || fail 4 "cannot fetch the history of the shallow checkout from $1 (set fetch-depth: 0 on actions/checkout)"
  fi
}
