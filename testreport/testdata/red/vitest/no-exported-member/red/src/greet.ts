export class Greeter {
  constructor(public greeting: string) {}

  say(name: string): string {
    return this.greeting + ', ' + name
  }
}

export function hello(name: string): string {
  return 'hi, ' + name
}
