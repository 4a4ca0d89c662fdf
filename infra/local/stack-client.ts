import type { StackInfo } from './control-routes.ts';

/** Finds the local stack running on PORT (default 3000), for the admin and token commands. */
export const runningStack = async (): Promise<StackInfo> => {
  const port = Number(process.env.PORT ?? 3000);
  try {
    const response = await fetch(`http://127.0.0.1:${port}/_local/stack`);
    if (!response.ok) throw new Error(`status ${response.status}`);
    return (await response.json()) as StackInfo;
  } catch (error) {
    throw new Error(`No local stack answers on 127.0.0.1:${port} (${(error as Error).message}). Start it with \`npm start\`, or set PORT.`);
  }
};
