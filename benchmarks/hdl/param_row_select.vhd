-- Indexed select of parameter rows: one row of a substitution matrix, NROWS entries of W bits, is a
-- parameter input (loaded when the query changes); a regular 5-bit index picks one entry per clock,
-- registered. Indices NROWS .. 31 give zero. Entry r is the port's bits (NROWS-r)*W-1 downto
-- (NROWS-1-r)*W (entry 0 in the top bits).
--
-- Two descriptions of the same function, one entity each:
--   param_row_select      the entries as an array indexed by the index (a dynamic slice);
--   param_row_select_if   a loop of if statements over the entries, as a case statement reads.
-- (The literal case statement "case idx is when ... when others => zero" is not used: GHDL 2.0.0's
-- Verilog writer drops the default of the one-hot multiplexer it makes of such a case, so Yosys reads
-- a latch for the "others" branch.)
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity param_row_select is
  generic (NROWS : natural := 24; W : natural := 6);
  port (
    clk     : in  std_logic;
    entries : in  std_logic_vector(NROWS*W-1 downto 0); --PARAM
    idx     : in  std_logic_vector(4 downto 0);
    cost    : out std_logic_vector(W-1 downto 0)
  );
end entity;

architecture rtl of param_row_select is
  type row_t is array (0 to 31) of std_logic_vector(W-1 downto 0);
  signal row : row_t;
begin
  fill : for r in 0 to 31 generate
    used : if r < NROWS generate
      row(r) <= entries((NROWS - r) * W - 1 downto (NROWS - 1 - r) * W);
    end generate;
    unused : if r >= NROWS generate
      row(r) <= (others => '0');
    end generate;
  end generate;

  process (clk)
  begin
    if rising_edge(clk) then
      cost <= row(to_integer(unsigned(idx)));
    end if;
  end process;
end architecture;

library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity param_row_select_if is
  generic (NROWS : natural := 24; W : natural := 6);
  port (
    clk     : in  std_logic;
    entries : in  std_logic_vector(NROWS*W-1 downto 0); --PARAM
    idx     : in  std_logic_vector(4 downto 0);
    cost    : out std_logic_vector(W-1 downto 0)
  );
end entity;

architecture rtl of param_row_select_if is
begin
  process (clk)
    variable v : std_logic_vector(W-1 downto 0);
  begin
    if rising_edge(clk) then
      v := (others => '0');
      for r in 0 to NROWS - 1 loop
        if unsigned(idx) = r then
          v := entries((NROWS - r) * W - 1 downto (NROWS - 1 - r) * W);
        end if;
      end loop;
      cost <= v;
    end if;
  end process;
end architecture;
