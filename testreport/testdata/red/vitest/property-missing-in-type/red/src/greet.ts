export interface Shouter {
  shout(name: string): string
}

export class Greeter {
  constructor(public greeting: string) {}

  say(name: string): string {
    return this.greeting + ', ' + name
  }
}
