/** The gateway's route table: API Gateway's path templates as regular expressions, most specific first. */
import type { Route } from '../../core/routes.ts';

interface CompiledRoute {
  route: Route;
  routeKey: string;
  pattern: RegExp;
  names: string[];
  literals: number;
}

export interface RouteMatch {
  route: Route;
  /** `GET /things/{thing_id}` */
  routeKey: string;
  /** Decoded, as API Gateway hands them over; empty for a route without parameters. */
  pathParameters: Record<string, string>;
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  let literals = 0;
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{([A-Za-z0-9_.:-]+)(\+?)\}$/.exec(segment);
      if (!param) {
        if (segment) literals += 1;
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      }
      names.push(param[1]!);
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return {
    route,
    routeKey: `${route.method} ${route.path}`,
    pattern: new RegExp(`^${source}$`),
    names,
    literals,
  };
}

/** Percent-decoding that leaves a malformed escape as it is, as API Gateway does. */
export function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A matcher over the routes: a literal segment wins over a parameter, as in API Gateway. */
export function createRouter(routes: readonly Route[]) {
  const compiled = routes.map(compile).sort((a, b) => b.literals - a.literals);
  return (method: string, rawPath: string): RouteMatch | undefined => {
    for (const entry of compiled) {
      const m = entry.pattern.exec(rawPath);
      if (!m || entry.route.method !== method) continue;
      const values = m.slice(1);
      return {
        route: entry.route,
        routeKey: entry.routeKey,
        pathParameters: Object.fromEntries(
          entry.names.map((name, i) => [name, decode(values[i]!)]),
        ),
      };
    }
    return undefined;
  };
}
