import { defineSkill } from 'skillplane'
import { z } from 'zod'

const operations = {
  add: (a: number, b: number) => a + b,
  subtract: (a: number, b: number) => a - b,
  multiply: (a: number, b: number) => a * b,
  divide: (a: number, b: number) => {
    if (b === 0) throw new Error('division by zero')
    return a / b
  },
  power: (a: number, b: number) => a ** b,
}

export const calculate = defineSkill({
  key: 'calculate',
  title: 'Calculate',
  description: 'Fold a list of numbers with one arithmetic operation, left to right: add, subtract, multiply, divide or power',
  class: 'safe',
  category: 'math',
  tags: ['arithmetic'],
  agents: ['Fleet Autonomy', 'notes'],
  input: z.object({
    operation: z.enum(['add', 'subtract', 'multiply', 'divide', 'power']),
    operands: z.array(z.number()).min(2).max(1000),
  }),
  output: z.object({ result: z.number() }),
  examples: [{ title: 'Sum', input: { operation: 'add', operands: [2, 3, 4] }, output: { result: 9 } }],
  run: ({ operation, operands }) => {
    const result = operands.slice(1).reduce(operations[operation], operands[0]!)
    if (!Number.isFinite(result)) throw new Error(`the result is not a finite number (${result})`)
    return { result }
  },
})
