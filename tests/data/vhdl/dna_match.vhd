-- DNA-style pattern matcher: one base (2 bits) enters per clock into a window of the last 6 bases;
-- count = number of window positions equal to the query (a parameter input, --PARAM comment),
-- match = all 6 equal. Window position 0 holds the newest base; query base i = bits 2i+1..2i.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.dna_pkg.all;

entity dna_match is
  port (
    clk   : in  std_logic;
    base  : in  std_logic_vector(1 downto 0);
    query : in  std_logic_vector(2*QUERY_BASES-1 downto 0);  -- PARAM
    count : out std_logic_vector(2 downto 0);
    match : out std_logic
  );
end entity;

architecture rtl of dna_match is
  signal win : std_logic_vector(2*QUERY_BASES-1 downto 0) := (others => '0');
begin
  process (clk)
  begin
    if rising_edge(clk) then
      win <= win(2*QUERY_BASES-3 downto 0) & base;
    end if;
  end process;

  process (win, query)
    variable n : unsigned(2 downto 0);
  begin
    n := (others => '0');
    for i in 0 to QUERY_BASES-1 loop
      if base_eq(win(2*i+1 downto 2*i), query(2*i+1 downto 2*i)) = '1' then
        n := n + 1;
      end if;
    end loop;
    count <= std_logic_vector(n);
    if n = QUERY_BASES then match <= '1'; else match <= '0'; end if;
  end process;
end architecture;
