/**
 * Builds update and condition expressions with placeholders for every name and value, so attribute
 * names never collide with DynamoDB's reserved words (`status`, `limit`, …).
 */
export class Expressions {
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};
  private readonly sets: string[] = [];
  private readonly removes: string[] = [];
  private readonly adds: string[] = [];
  private valueCount = 0;

  /** `#name` placeholder for an attribute (or a dotted path of them). */
  name(attribute: string): string {
    return attribute
      .split('.')
      .map((part) => {
        const placeholder = `#${part.replace(/[^A-Za-z0-9_]/g, '_')}`;
        this.names[placeholder] = part;
        return placeholder;
      })
      .join('.');
  }

  /** `:vN` placeholder for a value. */
  value(value: unknown): string {
    const placeholder = `:v${this.valueCount++}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  set(attribute: string, value: unknown): this {
    this.sets.push(`${this.name(attribute)} = ${this.value(value)}`);
    return this;
  }

  /** SET the attribute, or REMOVE it when the value is `null`/`undefined` (absent means null in Sundial's items). */
  setOrRemove(attribute: string, value: unknown): this {
    return value === null || value === undefined ? this.remove(attribute) : this.set(attribute, value);
  }

  setExpression(attribute: string, expression: string): this {
    this.sets.push(`${this.name(attribute)} = ${expression}`);
    return this;
  }

  remove(...attributes: string[]): this {
    for (const attribute of attributes) this.removes.push(this.name(attribute));
    return this;
  }

  add(attribute: string, amount: number): this {
    this.adds.push(`${this.name(attribute)} ${this.value(amount)}`);
    return this;
  }

  /** The parts of an Update input (which needs at least one action), with an optional condition. */
  buildUpdate(condition?: string): ReturnType<Expressions['build']> & { UpdateExpression: string } {
    const parts = this.build(condition);
    if (!parts.UpdateExpression) throw new Error('an update needs at least one action');
    return { ...parts, UpdateExpression: parts.UpdateExpression };
  }

  /** The parts of an Update/Put/ConditionCheck input: expression, names and values. */
  build(condition?: string): {
    UpdateExpression?: string;
    ConditionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  } {
    const clauses = [
      this.sets.length ? `SET ${this.sets.join(', ')}` : '',
      this.removes.length ? `REMOVE ${this.removes.join(', ')}` : '',
      this.adds.length ? `ADD ${this.adds.join(', ')}` : '',
    ].filter(Boolean);
    return {
      ...(clauses.length ? { UpdateExpression: clauses.join(' ') } : {}),
      ...(condition ? { ConditionExpression: condition } : {}),
      ...(Object.keys(this.names).length ? { ExpressionAttributeNames: { ...this.names } } : {}),
      ...(Object.keys(this.values).length ? { ExpressionAttributeValues: { ...this.values } } : {}),
    };
  }
}
