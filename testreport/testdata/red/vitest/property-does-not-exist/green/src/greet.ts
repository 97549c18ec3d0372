export class Greeter {
  punct = ''

  constructor(public greeting: string) {}

  say(name: string): string {
    return this.greeting + ', ' + name + this.punct
  }
}

export function hello(name: string): string {
  return 'hi, ' + name
}
